// The frontend recipe's manifest of trusted documents, as its codegen (examples/frontend/codegen.ts,
// persistedDocuments) writes it and a deployment ships it: what the service loads with TRUSTED_DOCUMENTS.
import fs from "node:fs";
import path from "node:path";
import { parseTrustedDocuments, type TrustedDocuments } from "../../src/graphql/trusted-documents";

export const RECIPE_MANIFEST = path.resolve(__dirname, "../../examples/frontend/src/gql/persisted-documents.json");

export function recipeManifest(): TrustedDocuments {
  return parseTrustedDocuments(fs.readFileSync(RECIPE_MANIFEST, "utf8"));
}
