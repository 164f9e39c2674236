// Jest runs the TypeScript through swc with decorator metadata (type-graphql reads it), against one embedded
// database started by the global setup (or MONGODB_URI); each test file works in its own database.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      {
        jsc: {
          parser: { syntax: "typescript", decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: "es2022",
        },
        module: { type: "commonjs" },
        sourceMaps: "inline",
      },
    ],
  },
  setupFiles: ["reflect-metadata"],
  globalSetup: "<rootDir>/tests/helpers/global-setup.ts",
  globalTeardown: "<rootDir>/tests/helpers/global-teardown.ts",
  testTimeout: 60_000,
};
