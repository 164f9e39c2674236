// A real webhook receiver on 127.0.0.1 for the tests: it records every request (headers, raw body, arrival order)
// and answers as the test says, per request: a status (with headers and a body), or no answer at all (hang).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  headers: Record<string, string>;
  body: string;
  /** Date.now() when it arrived. */
  at: number;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface Receiver {
  url: string;
  received: Received[];
  /** The n-th request's answer (n from 1); default 200. */
  answer: (n: number, request: Received) => Answer;
  /** Resolves once `count` requests arrived; rejects after `limitMs` (a failure, not a measurement). */
  waitFor(count: number, limitMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver["answer"] = () => ({ status: 200 })): Promise<Receiver> {
  const waiters: (() => void)[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: "",
    received: [],
    answer,
    async waitFor(count, limitMs = 20_000) {
      const deadline = Date.now() + limitMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`the receiver got ${receiver.received.length} of ${count} requests within ${limitMs} ms`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return receiver.received.slice(0, count);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
      );
      const request: Received = { headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      receiver.received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const reply = receiver.answer(receiver.received.length, request);
      if (reply === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** A new `whsec_` secret (32 random bytes). */
export function newSecret(): string {
  return `whsec_${Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256))).toString("base64")}`;
}

/** The body of a request as a receiver reads it: verified by the standardwebhooks library with `secret`, then parsed. */
export function verified<T = WebhookBody>(secret: string, request: Received): T {
  return new Webhook(secret).verify(request.body, request.headers) as T;
}

export interface WebhookBody {
  type: string;
  timestamp: string;
  data: {
    cursor: string;
    project_id: number;
    change: {
      revision: number;
      operation: string;
      changes: { field: string; from: string | null; to: string | null }[];
    };
    project: Record<string, unknown> & { project_id: number; revision: number; project_status: string };
  };
}
