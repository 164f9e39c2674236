// The frontend recipe (examples/frontend) as the tests use it: its manifest of trusted documents, as its codegen
// (examples/frontend/codegen.ts, persistedDocuments) writes it and a deployment ships it — what the service loads with
// TRUSTED_DOCUMENTS — and its type check with a probe file of the test's own.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { parseTrustedDocuments, type TrustedDocuments } from "../../src/graphql/trusted-documents";

export const RECIPE_MANIFEST = path.resolve(__dirname, "../../examples/frontend/src/gql/persisted-documents.json");

export function recipeManifest(): TrustedDocuments {
  return parseTrustedDocuments(fs.readFileSync(RECIPE_MANIFEST, "utf8"));
}

export const FRONTEND = path.resolve(__dirname, "../../examples/frontend");

/**
 * The recipe's type errors with one more source file, `src/<probeName>` holding `probe` (never written to disk): each
 * as "<file>: <message>". A probe uses the recipe's typed operations and marks the misuses that must not compile
 * with @ts-expect-error, so both a missing type and a lost check show here.
 */
export function compileRecipeWith(probeName: string, probe: string): string[] {
  const configFile = ts.readConfigFile(path.join(FRONTEND, "tsconfig.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, FRONTEND);
  const probePath = path.join(FRONTEND, "src", probeName);
  const host = ts.createCompilerHost(parsed.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => file === probePath || fileExists.call(host, file);
  host.readFile = (file) => (file === probePath ? probe : readFile.call(host, file));
  host.getSourceFile = (file, language, ...rest) =>
    file === probePath ? ts.createSourceFile(file, probe, language) : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram([...parsed.fileNames, probePath], parsed.options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.relative(FRONTEND, d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}
