// TRUSTED_DOCUMENTS and TRUSTED_DOCUMENTS_ONLY at start: a manifest as graphql-codegen writes it is loaded (every
// hash checked against its document), only-trusted defaults to true with a manifest, and a bad value, an unreadable
// file or a file that is not such a manifest stops the start with one line naming the variable.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig as loadConfigWith } from "../../src/config";
import { ConfigError } from "../../src/shared/environment";

const loadConfig = (env: NodeJS.ProcessEnv) => loadConfigWith(env, { statusWorkflow: parseStatusWorkflow });

function configError(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const DOCUMENT = "query Statuses { projectStatuses }";

function manifestFile(content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "trusted-")), "persisted-documents.json");
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("trusted documents configuration", () => {
  it("when TRUSTED_DOCUMENTS is unset, then there are none and every document may run", () => {
    expect(loadConfig({})).toMatchObject({ trustedDocuments: undefined, trustedDocumentsOnly: false });
  });

  it("when TRUSTED_DOCUMENTS names a client preset manifest, then its documents are loaded by hash and only they run", () => {
    const file = manifestFile({ [`sha256:${sha256(DOCUMENT)}`]: DOCUMENT });

    const config = loadConfig({ TRUSTED_DOCUMENTS: file });

    expect([...config.trustedDocuments!.entries()]).toEqual([[sha256(DOCUMENT), DOCUMENT]]);
    expect(config.trustedDocumentsOnly).toBe(true);
    expect(loadConfig({ TRUSTED_DOCUMENTS: file, TRUSTED_DOCUMENTS_ONLY: "FALSE" }).trustedDocumentsOnly).toBe(false);
  });

  it("when the manifest's keys are bare hex hashes, then it is accepted too", () => {
    const file = manifestFile({ [sha256(DOCUMENT)]: DOCUMENT });
    expect(loadConfig({ TRUSTED_DOCUMENTS: file }).trustedDocuments!.get(sha256(DOCUMENT))).toBe(DOCUMENT);
  });

  it.each([
    ["a key that is not a sha256 hash", { "sha1:abc": DOCUMENT }, /key "sha1:abc" is not a sha256 hash/],
    [
      "a document that does not hash to its key",
      { [`sha256:${sha256("other")}`]: DOCUMENT },
      /hashes to [0-9a-f]{64}, not to its key/,
    ],
    ["a document that is not a string", { [`sha256:${sha256(DOCUMENT)}`]: 1 }, /is not a non-empty string/],
    ["an array", [DOCUMENT], /expected a JSON object/],
    ["no document", {}, /lists no document/],
    ["text that is not JSON", "{ nope", /not valid JSON/],
  ])("when the manifest has %s, then start-up fails with one line saying so", (_what, content, reason) => {
    const line = configError({ TRUSTED_DOCUMENTS: manifestFile(content) });
    expect(line).toMatch(/^Invalid TRUSTED_DOCUMENTS \(".*"\): /);
    expect(line).toMatch(reason);
    expect(line.split("\n")).toHaveLength(1);
  });

  it("when TRUSTED_DOCUMENTS names a file that cannot be read, then the line says so", () => {
    expect(configError({ TRUSTED_DOCUMENTS: "/no/such/manifest.json" })).toBe(
      'Invalid TRUSTED_DOCUMENTS ("/no/such/manifest.json"): cannot read the file (ENOENT)',
    );
  });

  it("when TRUSTED_DOCUMENTS_ONLY is not true or false, or true without a manifest, then the line names it", () => {
    expect(configError({ TRUSTED_DOCUMENTS_ONLY: "maybe" })).toBe(
      'Invalid TRUSTED_DOCUMENTS_ONLY ("maybe"): accepts true or false',
    );
    expect(configError({ TRUSTED_DOCUMENTS_ONLY: "true" })).toMatch(
      /^Invalid TRUSTED_DOCUMENTS_ONLY \("true"\): needs TRUSTED_DOCUMENTS/,
    );
  });
});
