// npm run schema: writes what is committed from the schema the code builds: the SDL to schema/schema.graphql, the
// tests' field fragments to tests/graphql/fields.graphql, and the federation subgraph's SDL (what `_service { sdl }`
// answers with FEDERATION=true) to schema/subgraph.graphql.
import fs from "node:fs";
import "reflect-metadata";
import {
  FIELD_FRAGMENTS_FILE,
  printFieldFragments,
  printSdl,
  printSubgraphSdl,
  SCHEMA_FILE,
  SUBGRAPH_FILE,
} from "../src/graphql/schema";

for (const [file, text] of [
  [SCHEMA_FILE, printSdl()],
  [FIELD_FRAGMENTS_FILE, printFieldFragments()],
  [SUBGRAPH_FILE, printSubgraphSdl()],
]) {
  fs.writeFileSync(file, text);
  process.stdout.write(`Wrote ${file}\n`);
}
