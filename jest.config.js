// Jest runs the TypeScript through swc with decorator metadata (type-graphql reads it), against one embedded
// database started by the global setup (or MONGODB_URI); each test file works in its own database.
const os = require("node:os");

/** @type {import('jest').Config} */
module.exports = {
  // At least two worker processes, also on two cores (Jest's default there is one, in its own process): most of a
  // test file's time is waiting (for the database, a started service, a time limit), which the other worker fills.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
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
