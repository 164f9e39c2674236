// When the service runs without REDIS_URL, then no Redis client module is ever loaded: not at start, not while it
// answers. With REDIS_URL it is (the same check can see it). Checked on the real service process (the compiled
// dist/src/index.js, from its bundle when one is built: ioredis stays outside the bundle), through a preloaded module
// that reports at exit whether ioredis is in Node's module cache.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { testMongoUri } from "../helpers/database";
import { freePort } from "../helpers/redis";

const REPO = path.resolve(__dirname, "../..");
const IOREDIS = `${path.sep}node_modules${path.sep}ioredis${path.sep}`;

let dir: string;
let preload: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-lazy-redis-"));
  preload = path.join(dir, "report-ioredis.js");
  fs.writeFileSync(
    preload,
    `process.on("exit", () => {
      const loaded = Object.keys(require.cache).some((file) => file.includes(${JSON.stringify(IOREDIS)}));
      process.stderr.write("ioredis loaded: " + loaded + "\\n");
    });\n`,
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The environment without the service's own variables, plus `env`. */
function serviceEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const own = /^(PORT|HOST|MONGODB_URI|DATA_DIR|EMBEDDED_DB|NODE_ENV|AUTH_.*|REDIS_URL|LOG_LEVEL|TEST_.*)$/;
  const machine = Object.entries(process.env).filter(([name]) => !own.test(name));
  return { ...Object.fromEntries(machine), PORT: "0", MONGODB_URI: testMongoUri(), ...env };
}

/** Starts the service, answers one GraphQL query, stops it with SIGTERM; whether ioredis was loaded. */
async function ioredisLoaded(env: Record<string, string>): Promise<boolean> {
  const child = spawn(process.execPath, ["--require", preload, path.join(REPO, "dist/src/index.js")], {
    cwd: REPO,
    env: serviceEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const ready = /"msg":"Ready: (\S+)\/graphql/.exec(line);
      if (ready) resolve(ready[1]);
    });
    void exited.then((code) => reject(new Error(`service exited with ${code}: ${stderr}`)));
  });
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user-role": "admin" },
    body: JSON.stringify({ query: "{ projectStatuses }" }),
  });
  expect(response.status).toBe(200);
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  const report = /ioredis loaded: (true|false)/.exec(stderr);
  if (!report) throw new Error(`no report from the preloaded module: ${stderr}`);
  return report[1] === "true";
}

describe("the Redis client is loaded only with REDIS_URL", () => {
  it("when REDIS_URL is unset, then the service starts and answers without loading ioredis", async () => {
    expect(await ioredisLoaded({})).toBe(false);
  });

  it("when REDIS_URL is set, then ioredis is loaded (even while Redis is not reachable)", async () => {
    expect(await ioredisLoaded({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` })).toBe(true);
  });
});
