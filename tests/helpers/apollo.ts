// A real Apollo Client 4 (HttpLink over fetch) against the in-process test app, with a log of the operations it sent
// and a way to wait for what a watched query shows.
import { ApolloClient, HttpLink, InMemoryCache, type ObservableQuery, type OperationVariables } from "@apollo/client";
import type { TestApp } from "./app";

export interface LoggedClient {
  client: ApolloClient;
  /** The operation names sent over HTTP, in order. */
  sent: string[];
}

/** A client with the given cache (default: `new InMemoryCache()`, no configuration at all). */
export function apolloClient(
  t: TestApp,
  headers: Record<string, string>,
  cache: InMemoryCache = new InMemoryCache(),
): LoggedClient {
  const sent: string[] = [];
  const link = new HttpLink({
    uri: `${t.url}/graphql`,
    headers,
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { operationName?: string };
      sent.push(body.operationName ?? "(anonymous)");
      return fetch(input, init);
    },
  });
  return { client: new ApolloClient({ link, cache }), sent };
}

export interface Watch<TData> {
  /** The newest complete result. */
  readonly data: TData | undefined;
  /** Resolves with the first result (current or next) that satisfies `ok`; rejects after `ms`. */
  until(ok: (data: TData) => boolean, ms?: number): Promise<TData>;
  stop(): void;
}

/** Subscribes to a watched query, keeping its newest complete result. */
export function watch<TData, TVariables extends OperationVariables>(
  query: ObservableQuery<TData, TVariables>,
): Watch<TData> {
  let latest: TData | undefined;
  const waiters = new Set<() => void>();
  const subscription = query.subscribe({
    next: (result) => {
      if (result.dataState === "complete") {
        latest = result.data as TData;
        for (const wake of [...waiters]) wake();
      }
    },
  });
  return {
    get data() {
      return latest;
    },
    until(ok, ms = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (latest !== undefined && ok(latest)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(latest);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the watched query did not show the expected data; it shows ${JSON.stringify(latest)}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    stop: () => subscription.unsubscribe(),
  };
}
