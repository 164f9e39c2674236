// When several instances share one database and one Redis (REDIS_URL), then a caller gets RATE_LIMIT_PER_MINUTE
// requests across all of them together, and a document registered by Apollo's automatic persisted queries on one
// runs by its hash on the other. When Redis stalls (SIGSTOP), is killed (SIGKILL) or is not there at start, then
// every request is still answered (nothing hangs on Redis), each instance limits and caches on its own, the outage is
// logged once (warn) and counted in /metrics (redis_errors_total), /readyz stays 200, and sharing resumes by itself
// when Redis is back; a Redis that is full (refusing writes) is one outage too. A real redis-server
// (tests/helpers/redis.ts, driven by a real client where a test reconfigures it), two real app instances; no mock.
import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { Redis } from "ioredis";
import pino from "pino";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { startTestApp, type TestApp } from "../helpers/app";
import { freePort, startTestRedis, type TestRedis } from "../helpers/redis";
import type { Database } from "../../src/persistence";

const LIMIT = 6;
const PASSWORD = "s3cret-redis-pass";

interface LogLine {
  level: number;
  msg: string;
}
const WARN = 40;
const INFO = 30;

/** An instance of the service with the log lines it wrote. */
interface Instance {
  t: TestApp;
  logs: LogLine[];
  /** Everything it logged, as written. */
  raw: string[];
}

async function startInstance(db: Database, redisUrl: string): Promise<Instance> {
  const logs: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString());
      logs.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const t = await startTestApp({
    db,
    config: { redisUrl, rateLimitPerMinute: LIMIT },
    logger: pino({ level: "info" }, stream),
  });
  return { t, logs, raw };
}

const redisLines = (instance: Instance, level: number) =>
  instance.logs.filter((line) => line.level === level && line.msg.startsWith("Redis at "));

async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !done();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const byHash = (query: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } });

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
}

/**
 * A GraphQL POST as `caller`. It must be answered: a request still waiting after 5 s (Redis holds requests only
 * 180 ms at most) fails the test as hanging, whatever the machine's load.
 */
async function post(instance: Instance, caller: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${instance.t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user-role": "admin", "x-user-id": caller },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

const QUERY = { query: "{ teachers(limit: 1) { total } }" };

/** The statuses of `count` requests of `caller`, sent alternately to the instances given. */
async function statuses(caller: string, count: number, ...instances: Instance[]): Promise<number[]> {
  const answered: number[] = [];
  for (let i = 0; i < count; i++) answered.push((await post(instances[i % instances.length], caller, QUERY)).status);
  return answered;
}

async function redisErrors(instance: Instance): Promise<number> {
  const text = await (await fetch(`${instance.t.url}/metrics`)).text();
  const match = /^redis_errors_total (\d+)$/m.exec(text);
  if (!match) throw new Error("redis_errors_total is not in /metrics");
  return Number(match[1]);
}

const readyz = async (instance: Instance) => (await fetch(`${instance.t.url}/readyz`)).status;

const ok = (times: number) => Array<number>(times).fill(200);

describe("two instances, one database, one Redis", () => {
  let redis: TestRedis;
  let db: Database;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    redis = await startTestRedis({ password: PASSWORD });
    db = await openTestDatabase();
    a = await startInstance(db, redis.url);
    b = await startInstance(db, redis.url);
    await until(() => redisLines(a, INFO).length > 0 && redisLines(b, INFO).length > 0, "both instances to connect");
  });
  afterAll(async () => {
    await a?.t.close();
    await b?.t.close();
    if (db) await dropTestDatabase(db);
    await redis?.close();
  });

  it("when a caller's requests are spread over both instances, then it gets RATE_LIMIT_PER_MINUTE in all, not per instance", async () => {
    expect(await statuses("spread", LIMIT, a, b)).toEqual(ok(LIMIT));

    expect((await post(a, "spread", QUERY)).status).toBe(429);
    const refused = await post(b, "spread", QUERY);
    expect(refused.status).toBe(429);
    expect(refused.body.errors![0].extensions!.code).toBe("TOO_MANY_REQUESTS");
    // Keyed per caller, as without Redis.
    expect((await post(b, "another-caller", QUERY)).status).toBe(200);
  });

  it("when a document is registered by automatic persisted query on one instance, then the other runs it by its hash", async () => {
    const query = "query SharedDocument { teachers(limit: 2) { total } }";
    expect((await post(b, "apq", byHash(query))).body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_FOUND");

    const registered = await post(a, "apq", { query, ...byHash(query) });
    expect(registered.body.errors).toBeUndefined();

    expect(await post(b, "apq", byHash(query))).toEqual({
      status: 200,
      body: { data: { teachers: { total: expect.any(Number) } } },
    });
  });

  it("when Redis stalls (SIGSTOP), then both instances keep answering with limits of their own, log it once, count it and stay ready; when it resumes, sharing resumes", async () => {
    const errorsBefore = [await redisErrors(a), await redisErrors(b)];
    const [warnings, notes] = [
      [a, b].map((i) => redisLines(i, WARN).length),
      [a, b].map((i) => redisLines(i, INFO).length),
    ];
    redis.stall();
    try {
      // Each instance now counts on its own: the caller gets LIMIT on each, then is refused by each.
      expect(await statuses("stalled", LIMIT, a)).toEqual(ok(LIMIT));
      expect((await post(a, "stalled", QUERY)).status).toBe(429);
      expect(await statuses("stalled", LIMIT, b)).toEqual(ok(LIMIT));
      expect((await post(b, "stalled", QUERY)).status).toBe(429);
      // A document registered meanwhile is this instance's own.
      const query = "query DuringStall { teachers(limit: 3) { total } }";
      expect((await post(a, "apq", { query, ...byHash(query) })).body.errors).toBeUndefined();
      expect((await post(a, "apq", byHash(query))).status).toBe(200);
      expect((await post(b, "apq", byHash(query))).body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_FOUND");

      expect([await readyz(a), await readyz(b)]).toEqual([200, 200]);
      expect(await redisErrors(a)).toBeGreaterThan(errorsBefore[0]);
      expect(await redisErrors(b)).toBeGreaterThan(errorsBefore[1]);
      // One warning for this outage on each instance, however many requests met it.
      for (const [n, instance] of [a, b].entries()) {
        expect(redisLines(instance, WARN).slice(warnings[n])).toEqual([
          expect.objectContaining({ msg: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ failed \(/) }),
        ]);
      }
    } finally {
      redis.resume();
    }

    const back = () => [a, b].every((instance, n) => redisLines(instance, INFO).length > notes[n]);
    await until(back, "Redis to be back");
    expect(redisLines(a, INFO)[notes[0]].msg).toMatch(/answers again/);
    expect(await statuses("after-stall", LIMIT, a, b)).toEqual(ok(LIMIT));
    expect((await post(b, "after-stall", QUERY)).status).toBe(429);
  });

  it("when Redis is killed (SIGKILL) mid-run, then requests are answered by each instance alone; when it starts again, sharing resumes by itself", async () => {
    const [warnings, notes] = [
      [a, b].map((i) => redisLines(i, WARN).length),
      [a, b].map((i) => redisLines(i, INFO).length),
    ];
    await redis.kill();

    const query = "query DuringOutage { teachers(limit: 4) { total } }";
    expect((await post(a, "apq", { query, ...byHash(query) })).body.errors).toBeUndefined();
    expect((await post(b, "apq", byHash(query))).body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_FOUND");
    // Still limited, by each instance alone: LIMIT on each.
    expect(await statuses("killed", 2 * LIMIT, a, b)).toEqual(ok(2 * LIMIT));
    expect((await post(a, "killed", QUERY)).status).toBe(429);
    expect([await readyz(a), await readyz(b)]).toEqual([200, 200]);
    // One warning for this outage, however many requests and reconnection attempts it took.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([redisLines(a, WARN).length, redisLines(b, WARN).length]).toEqual([warnings[0] + 1, warnings[1] + 1]);

    await redis.start();
    const back = () => [a, b].every((instance, n) => redisLines(instance, INFO).length > notes[n]);
    await until(back, "Redis to be back");

    expect(await statuses("after-restart", LIMIT, a, b)).toEqual(ok(LIMIT));
    expect((await post(a, "after-restart", QUERY)).status).toBe(429);
    const again = "query AfterRestart { teachers(limit: 5) { total } }";
    expect((await post(a, "apq", { query: again, ...byHash(again) })).body.errors).toBeUndefined();
    expect((await post(b, "apq", byHash(again))).status).toBe(200);
  });

  it("when REDIS_URL carries a password, then no log line of either instance shows it", () => {
    const all = [...a.raw, ...b.raw].join("");
    expect(all).toContain(`redis://127.0.0.1:${redis.port}`);
    expect(all).not.toContain(PASSWORD);
  });
});

describe("Redis not reachable when the instances start", () => {
  let redis: TestRedis | undefined;
  let db: Database;
  let a: Instance;
  let b: Instance;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    db = await openTestDatabase();
    a = await startInstance(db, `redis://127.0.0.1:${port}`);
    b = await startInstance(db, `redis://127.0.0.1:${port}`);
  });
  afterAll(async () => {
    await a?.t.close();
    await b?.t.close();
    if (db) await dropTestDatabase(db);
    await redis?.close();
  });

  it("when Redis is down at start, then each instance answers with its own limit and says so once; once Redis starts, they share", async () => {
    expect(await statuses("early", LIMIT, a)).toEqual(ok(LIMIT));
    expect((await post(a, "early", QUERY)).status).toBe(429);
    expect((await post(b, "early", QUERY)).status).toBe(200);
    expect([await readyz(a), await readyz(b)]).toEqual([200, 200]);
    expect(await redisErrors(a)).toBeGreaterThan(0);
    expect(redisLines(a, WARN)).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/) }),
    ]);

    redis = await startTestRedis({ port });
    await until(() => redisLines(a, INFO).length === 1 && redisLines(b, INFO).length === 1, "the instances to connect");

    expect(await statuses("later", LIMIT, a, b)).toEqual(ok(LIMIT));
    expect((await post(b, "later", QUERY)).status).toBe(429);
  });
});

describe("Redis full (maxmemory without eviction)", () => {
  let redis: TestRedis;
  let db: Database;
  let a: Instance;
  let b: Instance;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startTestRedis();
    db = await openTestDatabase();
    a = await startInstance(db, redis.url);
    b = await startInstance(db, redis.url);
    admin = new Redis(redis.url);
    await until(() => redisLines(a, INFO).length > 0 && redisLines(b, INFO).length > 0, "both instances to connect");
  });
  afterAll(async () => {
    admin?.disconnect();
    await a?.t.close();
    await b?.t.close();
    if (db) await dropTestDatabase(db);
    await redis?.close();
  });

  it("when Redis refuses writes, then the outage is logged once, not each time Redis answers a probe, and sharing resumes once it accepts them again", async () => {
    await admin.config("SET", "maxmemory-policy", "noeviction");
    await admin.config("SET", "maxmemory", "1");

    expect(await statuses("full", LIMIT, a)).toEqual(ok(LIMIT));
    expect((await post(a, "full", QUERY)).status).toBe(429);
    expect((await post(b, "full", QUERY)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // three probes
    expect(redisLines(a, WARN)).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ failed \(OOM /) }),
    ]);
    expect(redisLines(a, INFO)).toHaveLength(1); // "connected", and no "answers again" yet

    await admin.config("SET", "maxmemory", "0");
    await until(() => redisLines(a, INFO).length === 2 && redisLines(b, INFO).length === 2, "Redis to be back");
    expect(await statuses("not-full", LIMIT, a, b)).toEqual(ok(LIMIT));
    expect((await post(a, "not-full", QUERY)).status).toBe(429);
  });
});
