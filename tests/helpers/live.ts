// A real graphql-ws client (with `ws`) for the live-update tests: connect to a test app's /graphql, subscribe with a
// typed document, and wait for events, errors, completion or the socket's close.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print, type GraphQLFormattedError } from "graphql";
import { createClient, type Client, type ClientOptions } from "graphql-ws";
import WebSocket from "ws";
import type { TestApp } from "./app";

export const wsUrl = (t: Pick<TestApp, "url">) => `${t.url.replace(/^http/, "ws")}/graphql`;

export interface LiveClient {
  client: Client;
  /** Close events of the client's sockets, in order. */
  closes: { code: number; reason: string }[];
  dispose(): Promise<void>;
}

/** A graphql-ws client; no retries unless the options ask for them. */
export function liveClient(
  t: Pick<TestApp, "url">,
  connectionParams: Record<string, unknown> | (() => Promise<Record<string, unknown>>),
  options: Partial<ClientOptions> = {},
): LiveClient {
  const closes: LiveClient["closes"] = [];
  const client = createClient({
    url: wsUrl(t),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
    ...options,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        closes.push({ code, reason: String(reason) });
      },
      ...options.on,
    },
  });
  return { client, closes, dispose: () => client.dispose() as Promise<void> };
}

/** One subscription: what it received so far, and waits for more. */
export class Subscription<T> {
  readonly events: T[] = [];
  errors?: readonly GraphQLFormattedError[] | unknown;
  completed = false;
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(client: Client, document: TypedDocumentNode<T, Record<string, unknown>>, variables: object) {
    this.unsubscribe = client.subscribe<T>(
      { query: print(document), variables: variables as Record<string, unknown> },
      {
        next: (result) => {
          if (result.errors) this.errors = result.errors;
          if (result.data) this.events.push(result.data as T);
          this.notify();
        },
        error: (err) => {
          this.errors = err;
          this.notify();
        },
        complete: () => {
          this.completed = true;
          this.notify();
        },
      },
    );
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves once `done()` holds (checked on every message), failing after timeoutMs. */
  until(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}; got ${this.events.length} events, errors ${JSON.stringify(this.errors)}`,
          ),
        );
      }, timeoutMs);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  /** Waits for at least `n` events in all. */
  async received(n: number, timeoutMs?: number): Promise<T[]> {
    await this.until(() => this.events.length >= n, `${n} events`, timeoutMs);
    return this.events;
  }

  /** Waits for the subscription to fail (an error message, or the socket closing). */
  async failed(timeoutMs?: number): Promise<unknown> {
    await this.until(() => this.errors !== undefined, "an error", timeoutMs);
    return this.errors;
  }

  stop(): void {
    this.unsubscribe();
  }
}

export function subscribe<T, V extends object>(
  live: LiveClient,
  document: TypedDocumentNode<T, V>,
  variables: V,
): Subscription<T> {
  return new Subscription<T>(live.client, document as TypedDocumentNode<T, Record<string, unknown>>, variables);
}

/** A subscription is live on the server once its first poll ran; a short settle keeps tests from racing it. */
export const settle = (ms = 100) => new Promise((resolve) => setTimeout(resolve, ms));
