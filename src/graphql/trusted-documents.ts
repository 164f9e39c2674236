// Trusted documents (TRUSTED_DOCUMENTS): the manifest of the GraphQL documents a deployment's own frontends send, as
// graphql-codegen's client preset writes it with `persistedDocuments: true` (persisted-documents.json:
// { "sha256:<hex>": "<document>" }; a bare "<hex>" key is accepted too). A request names its document by
// `documentId: "sha256:<hex>"` (GraphQL over HTTP, persisted documents appendix) or by Apollo's
// `extensions.persistedQuery.sha256Hash`; document-policy.ts resolves that name for HTTP and WebSocket alike and
// decides, with TRUSTED_DOCUMENTS_ONLY, whether anything else may run. This module only reads and checks manifests:
// it is loaded by src/config.ts at start, so it imports nothing but node:crypto.
import { createHash } from "node:crypto";
import { parseJsonText } from "../shared/json-text";

/** The trusted documents by the lower-case hex sha256 of their text. */
export type TrustedDocuments = ReadonlyMap<string, string>;

const HEX = /^[0-9a-f]{64}$/;
const PREFIX = "sha256:";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The hex hash a manifest key or a request names ("sha256:<hex>" or "<hex>", any case); undefined for another form. */
export function hashOf(name: string, options: { prefix: "required" | "optional" }): string | undefined {
  const lower = name.trim().toLowerCase();
  const hex = lower.startsWith(PREFIX) ? lower.slice(PREFIX.length) : options.prefix === "optional" ? lower : "";
  return HEX.test(hex) ? hex : undefined;
}

/**
 * Parses a manifest's text; throws Error with a one-line reason (the process prints it and stops). Every document
 * must hash to its key: a manifest edited by hand, or built with another hash algorithm (the client preset's sha1
 * option), would otherwise name documents by ids no client sends, or let an id run a document it does not name.
 */
export function parseTrustedDocuments(text: string): TrustedDocuments {
  const raw = parseJsonText(text);
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error('expected a JSON object { "sha256:<hex>": "<document>" } as graphql-codegen writes it');
  }
  const documents = new Map<string, string>();
  for (const [key, document] of Object.entries(raw as Record<string, unknown>)) {
    const shown = JSON.stringify(key.slice(0, 80));
    const hex = hashOf(key, { prefix: "optional" });
    if (!hex) throw new Error(`key ${shown} is not a sha256 hash (64 hex digits, optionally prefixed "sha256:")`);
    if (typeof document !== "string" || document.trim() === "") {
      throw new Error(`the document of ${shown} is not a non-empty string`);
    }
    const actual = sha256Hex(document);
    if (actual !== hex) {
      throw new Error(
        `the document of ${shown} hashes to ${actual}, not to its key: regenerate the manifest (sha256) instead of editing it`,
      );
    }
    documents.set(hex, document);
  }
  if (documents.size === 0) throw new Error("the manifest lists no document");
  return documents;
}
