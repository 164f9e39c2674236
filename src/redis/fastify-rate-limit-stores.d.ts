// Types of @fastify/rate-limit's two built-in stores, which its package ships without declarations: rate-limit-store.ts
// combines them (Redis, and this instance's memory while Redis is out).
declare module "@fastify/rate-limit/store/LocalStore" {
  import type { RateLimitStore } from "@fastify/rate-limit/store/RedisStore";
  class LocalStore implements RateLimitStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
    incr: RateLimitStore["incr"];
    read: RateLimitStore["read"];
    child: RateLimitStore["child"];
  }
  export = LocalStore;
}

declare module "@fastify/rate-limit/store/RedisStore" {
  namespace RedisStore {
    type Counted = { current: number; ttl: number };
    type Callback = (error: Error | null, result?: Counted) => void;
    /** The plugin's parameters, merged with a route's own rate-limit configuration. */
    interface StoreParams {
      continueExceeding: boolean;
      exponentialBackoff: boolean;
      cache?: number;
      routeInfo: { method?: string; url?: string };
    }
    interface RateLimitStore {
      incr(key: string, callback: Callback, timeWindow: number, max: number): void;
      read(key: string, callback: Callback, timeWindow: number, max: number): void;
      child(params: StoreParams): RateLimitStore;
    }
  }
  class RedisStore implements RedisStore.RateLimitStore {
    /** `redis`: an ioredis client (the store defines its Lua scripts on it); `key`: the prefix of its keys. */
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown, key?: string);
    incr: RedisStore.RateLimitStore["incr"];
    read: RedisStore.RateLimitStore["read"];
    child: RedisStore.RateLimitStore["child"];
  }
  export = RedisStore;
}
