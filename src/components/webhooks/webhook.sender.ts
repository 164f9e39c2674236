// One attempt of a delivery over HTTP: a POST of the signed body, answered within the time limit (10 s for the whole
// exchange), no redirect followed (Node's http client follows none), at most 1 KB of the answer kept. With
// WEBHOOKS_ALLOW_PRIVATE=false the host is resolved and checked first and the connection pinned to the checked
// addresses (webhook.address-guard.ts). Errors name what failed, never a header (the signature) or a secret.
import http from "node:http";
import https from "node:https";
import { checkHost, pinnedLookup } from "./webhook.address-guard";

/** The longest one attempt may take, connecting and answering included. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How much of an answer's body is kept. */
export const RESPONSE_KEPT_BYTES = 1024;

export type AttemptResult =
  | { kind: "answered"; status: number; body: string; retryAfter?: string }
  | { kind: "failed"; error: string }
  /** Not called: the address is not allowed. */
  | { kind: "refused"; error: string };

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
}

export async function sendAttempt(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<AttemptResult> {
  const target = new URL(url);
  let lookup: ReturnType<typeof pinnedLookup> | undefined;
  if (!options.allowPrivate) {
    if (target.protocol !== "https:")
      return { kind: "refused", error: "only https URLs are called (WEBHOOKS_ALLOW_PRIVATE is false)" };
    const checked = await checkHost(target.hostname);
    if ("refused" in checked) return { kind: "refused", error: checked.refused };
    lookup = pinnedLookup(checked);
  }
  const client = target.protocol === "https:" ? https : http;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "project-service-webhooks/1",
        },
        agent: false,
        ...(lookup ? { lookup } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString("utf8");
          const retryAfter = response.headers["retry-after"];
          settle({
            kind: "answered",
            status: response.statusCode ?? 0,
            body: text,
            ...(typeof retryAfter === "string" ? { retryAfter } : {}),
          });
        };
        response.on("data", (chunk: Buffer) => {
          if (kept < RESPONSE_KEPT_BYTES) chunks.push(chunk);
          kept += chunk.length;
          // Enough kept: the rest of the answer is not read.
          if (kept >= RESPONSE_KEPT_BYTES) done();
        });
        response.on("end", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(
      () => settle({ kind: "failed", error: `no answer within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    request.on("error", (err: NodeJS.ErrnoException) =>
      settle({ kind: "failed", error: `request failed (${err.code ?? err.message.slice(0, 100)})` }),
    );
    request.end(body);
  });
}
