// npm run schema: writes what is committed from the schema and the routes the code builds: the SDL to
// schema/schema.graphql, the tests' field fragments to tests/graphql/fields.graphql, the federation subgraph's SDL
// (what `_service { sdl }` answers with FEDERATION=true) to schema/subgraph.graphql, the REST facade's OpenAPI
// document to schema/openapi.json, and the body column of docs/rest.md's route table.
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
import { OPENAPI_FILE, printCurrentOpenApi, REST_DOC_FILE, withRestBodyFields } from "../src/rest/generated-docs";

async function main(): Promise<void> {
  for (const [file, text] of [
    [SCHEMA_FILE, printSdl()],
    [FIELD_FRAGMENTS_FILE, printFieldFragments()],
    [SUBGRAPH_FILE, printSubgraphSdl()],
    [OPENAPI_FILE, await printCurrentOpenApi()],
    [REST_DOC_FILE, withRestBodyFields(fs.readFileSync(REST_DOC_FILE, "utf8"))],
  ]) {
    fs.writeFileSync(file, text);
    process.stdout.write(`Wrote ${file}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
