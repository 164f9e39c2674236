// npm run schema: writes the SDL the code builds to schema/schema.graphql.
import fs from "node:fs";
import "reflect-metadata";
import { printSdl, SCHEMA_FILE } from "../src/graphql/schema";

fs.writeFileSync(SCHEMA_FILE, printSdl());
process.stdout.write(`Wrote ${SCHEMA_FILE}\n`);
