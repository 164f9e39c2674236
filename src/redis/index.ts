// What the instances of the service share through Redis when REDIS_URL is set: the rate-limit counts
// (@fastify/rate-limit's store) and the documents of Apollo's automatic persisted queries (Apollo's persisted-query
// cache). Without REDIS_URL the app opens nothing here, and each instance keeps both in its own memory. This module
// loads no Redis client: openSharedState() imports the connection (and with it ioredis) on demand, so a service
// without REDIS_URL never loads one.
import type { KeyValueCache } from "@apollo/utils.keyvaluecache";
import type { FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { Logger } from "../logger";

/** Every key the service writes starts with it, so other applications may share the Redis database. */
const KEY_PREFIX = "project-service:";

export interface SharedState {
  /** For @fastify/rate-limit's `store` option. */
  rateLimitStore: FastifyRateLimitStoreCtor;
  /** For Apollo's `persistedQueries.cache`. */
  documentCache: KeyValueCache<string>;
  /** Closes the connection (the app's onClose). */
  close(): Promise<void>;
}

/**
 * Connects to Redis in the background and returns at once: until Redis answers, and whenever it does not, each
 * instance counts and caches on its own. `onError` is called for every failed Redis operation or connection attempt.
 */
export async function openSharedState(url: string, options: { logger: Logger; onError(): void }): Promise<SharedState> {
  const [{ RedisConnection }, { sharedRateLimitStore }, { SharedDocumentCache }] = await Promise.all([
    import("./redis-connection"),
    import("./rate-limit-store"),
    import("./document-cache"),
  ]);
  const connection = new RedisConnection(url, options);
  return {
    rateLimitStore: sharedRateLimitStore(connection, `${KEY_PREFIX}rate-limit:`),
    documentCache: new SharedDocumentCache(connection, `${KEY_PREFIX}documents:`),
    close: () => connection.close(),
  };
}
