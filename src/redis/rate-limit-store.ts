// @fastify/rate-limit's store when REDIS_URL is set: each request is counted in Redis by the plugin's own RedisStore
// (one atomic Lua script: INCR, and the window's expiry on the first count), so every instance counts against one
// limit per caller; whenever Redis does not serve the count (redis-connection.ts), it is counted by the plugin's own
// LocalStore in this instance's memory instead, as without Redis. The plugin's skipOnError would let every request
// through during an outage, and its default (fail closed) would refuse them all: this store does neither.
import type { FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import LocalStore from "@fastify/rate-limit/store/LocalStore";
import RedisStore from "@fastify/rate-limit/store/RedisStore";
import type { RedisConnection } from "./redis-connection";

type Counted = RedisStore.Counted;
type Callback = RedisStore.Callback;
type Counter = "incr" | "read";

class FallbackStore implements RedisStore.RateLimitStore {
  constructor(
    private readonly connection: RedisConnection,
    private readonly shared: RedisStore.RateLimitStore,
    private readonly local: RedisStore.RateLimitStore,
  ) {}

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.count("incr", key, callback, timeWindow, max);
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.count("read", key, callback, timeWindow, max);
  }

  child(params: RedisStore.StoreParams): FallbackStore {
    return new FallbackStore(this.connection, this.shared.child(params), this.local.child(params));
  }

  private count(method: Counter, key: string, callback: Callback, timeWindow: number, max: number): void {
    this.connection
      .attempt(
        () =>
          new Promise<Counted>((resolve, reject) =>
            this.shared[method](
              key,
              (err, result) => (err || !result ? reject(err) : resolve(result)),
              timeWindow,
              max,
            ),
          ),
      )
      .then(
        (result) => callback(null, result),
        () => this.local[method](key, callback, timeWindow, max),
      );
  }
}

/**
 * The store class for @fastify/rate-limit's `store` option; its Redis keys start with `prefix`. (The plugin's
 * declared store type says child() takes route options; it passes the merged parameters the stores read.)
 */
export function sharedRateLimitStore(connection: RedisConnection, prefix: string): FastifyRateLimitStoreCtor {
  return class SharedRateLimitStore extends FallbackStore {
    constructor(options: object) {
      const params = options as RedisStore.StoreParams;
      super(
        connection,
        new RedisStore(params.continueExceeding, params.exponentialBackoff, connection.client, prefix),
        new LocalStore(params.continueExceeding, params.exponentialBackoff, params.cache),
      );
    }
  } as unknown as FastifyRateLimitStoreCtor;
}
