// A frontend's codegen configuration (graphql-codegen's client preset): typed operations from the service's committed
// SDL. In a frontend repository, point `schema` at your copy of schema/schema.graphql (or at the running service's
// /graphql outside production) and run `npx graphql-codegen --config codegen.ts`; tests/frontend checks this recipe,
// with the service running only the documents of the manifest it writes.
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "../../schema/schema.graphql",
  documents: ["src/**/*.ts", "!src/gql/**"],
  ignoreNoDocuments: false,
  generates: {
    "src/gql/": {
      preset: "client",
      // Trusted documents: every operation gets its hash (document.__meta__.hash, "sha256:<hex>") and the preset
      // writes src/gql/persisted-documents.json, the manifest the service loads with TRUSTED_DOCUMENTS. Ship that file
      // with the deployment of this build; the client sends documentId instead of the text (src/persisted.ts).
      presetConfig: { persistedDocuments: true },
      config: {
        // Plain fetch needs the query text: documents are typed strings, not ASTs.
        documentMode: "string",
        // The date scalars answer text (YYYY-MM-DD, ISO 8601 UTC); parse them where the UI needs dates.
        scalars: { SafeInt: "number", LocalDate: "string", DateTime: "string" },
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
