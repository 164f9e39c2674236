// Apollo's cache of automatic persisted queries when REDIS_URL is set: a document registered on any instance is kept
// in Redis, so every instance runs it by its hash. Two tiers: this instance's memory first (Apollo's own bounded LRU
// cache, the default cache without Redis), then Redis on a miss. A document never changes under its hash, so a copy in
// memory is never stale, and the documents a client sends often cost no Redis round trip at all. Whenever Redis does
// not serve a lookup (redis-connection.ts), the instance answers from its memory alone, as without Redis: an unknown
// hash is then PERSISTED_QUERY_NOT_FOUND and the client sends the document again, as the protocol says.
import { InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from "@apollo/utils.keyvaluecache";
import type { RedisConnection } from "./redis-connection";

/** How long Redis keeps a document registered without a TTL of Apollo's: a client whose document expired registers it again. */
export const DOCUMENT_TTL_SECONDS = 24 * 60 * 60;

export class SharedDocumentCache implements KeyValueCache<string> {
  private readonly local = new InMemoryLRUCache<string>();

  /** `prefix` starts the documents' Redis keys. */
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const known = await this.local.get(key);
    if (known !== undefined) return known;
    let shared: string | null;
    try {
      shared = await this.connection.attempt((redis) => redis.get(this.prefix + key));
    } catch {
      return undefined;
    }
    if (shared === null) return undefined;
    await this.local.set(key, shared);
    return shared;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    await this.local.set(key, value, options);
    const ttl = options?.ttl && options.ttl > 0 ? Math.ceil(options.ttl) : DOCUMENT_TTL_SECONDS;
    // Apollo does not wait for a registration; a registration Redis misses stays in this instance's memory.
    await this.connection.attempt((redis) => redis.set(this.prefix + key, value, "EX", ttl)).catch(() => undefined);
  }

  async delete(key: string): Promise<boolean> {
    const deleted = await this.local.delete(key);
    await this.connection.attempt((redis) => redis.del(this.prefix + key)).catch(() => undefined);
    return deleted;
  }
}
