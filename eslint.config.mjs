// ESLint (flat config): typescript-eslint's recommended type-aware rules for the service, its scripts and tests;
// formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

// Component boundaries: a component (src/components/<name>) is used only through its index.ts (the domain), its
// graphql.ts or its persistence.ts; its other files are its own.
const PUBLIC_ENTRY = "(?!(index|graphql|persistence)$)";
const OUTSIDE_A_COMPONENT = {
  regex: `(^|/)components/[^/]+/${PUBLIC_ENTRY}`,
  message: "Import a component through its index.ts, graphql.ts or persistence.ts.",
};
const ANOTHER_COMPONENT = {
  regex: `^\\.\\./[^/.]+/${PUBLIC_ENTRY}`,
  message: "Import another component through its index.ts, graphql.ts or persistence.ts.",
};

export default tseslint.config(
  {
    ignores: [
      "dist/",
      "coverage/",
      "node_modules/",
      // npm run fuzz: its Python environment (ignored by git too).
      ".fuzz/",
      "tests/generated/",
      "examples/frontend/src/gql/",
      "tests/output/",
      ".data/",
      ".venv*/",
      "tools/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-floating-promises": "error",
      "no-restricted-imports": ["error", { patterns: [OUTSIDE_A_COMPONENT] }],
      // `typeof import("x")` types the few deliberately lazy require()s (tracing, pino-pretty).
      "@typescript-eslint/consistent-type-imports": [
        "error",
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: ["src/components/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [OUTSIDE_A_COMPONENT, ANOTHER_COMPONENT] }] },
  },
  {
    // Plain JavaScript (jest's config, scripts/run.js, this file): no type information, so no project service.
    files: ["**/*.js", "**/*.cjs", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      sourceType: "commonjs",
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        __dirname: "readonly",
        console: "readonly",
      },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, "@typescript-eslint/no-require-imports": "off" },
  },
  { files: ["**/*.mjs"], languageOptions: { sourceType: "module" } },
  prettier,
);
