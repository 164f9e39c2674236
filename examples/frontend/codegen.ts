// A frontend's codegen configuration (graphql-codegen's client preset): typed operations from the service's committed
// SDL. In a frontend repository, point `schema` at your copy of schema/schema.graphql (or at the running service's
// /graphql outside production) and run `npx graphql-codegen --config codegen.ts`; tests/frontend checks this recipe.
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "../../schema/schema.graphql",
  documents: ["src/**/*.ts", "!src/gql/**"],
  ignoreNoDocuments: false,
  generates: {
    "src/gql/": {
      preset: "client",
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
