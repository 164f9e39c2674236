// A real Redis for the tests: Debian's redis-server (apt-get install redis-server; .ci/run installs it), started by
// a test file on a free loopback port with no persistence (--save '' --appendonly no) and stopped after it. A test
// can stall it (SIGSTOP: the connection stays open and nothing answers, as a slow Redis), resume it (SIGCONT), kill
// it (SIGKILL: gone, its data with it) and start it again on the same port.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const REDIS_SERVER = "redis-server";

export interface TestRedis {
  port: number;
  /** redis://[:password@]127.0.0.1:<port> */
  url: string;
  /** Starts the server (again, after kill) on the same port and waits until it answers. */
  start(): Promise<void>;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** SIGSTOP: the server keeps its connections and answers nothing. */
  stall(): void;
  /** SIGCONT after stall(). */
  resume(): void;
  /** Stops the server (if running) and removes its directory. */
  close(): Promise<void>;
}

/** A port nothing listens on now (the kernel's choice for port 0). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether redis-server is on PATH. */
function installed(): boolean {
  return spawnSync(REDIS_SERVER, ["--version"], { encoding: "utf8" }).status === 0;
}

/** Sends PING over a raw socket; resolves true on +PONG (or NOAUTH: it answers), false on anything else. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
  });
}

/** Starts a Redis; `password` sets requirepass (the URL then carries it). */
export async function startTestRedis(options: { password?: string; port?: number } = {}): Promise<TestRedis> {
  if (!installed()) {
    throw new Error("redis-server is not installed: apt-get install -y redis-server (.ci/run does it)");
  }
  const port = options.port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-redis-"));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    args.push("--dir", dir, "--loglevel", "warning");
    if (options.password) args.push("--requirepass", options.password);
    const started = spawn(REDIS_SERVER, args, { stdio: ["ignore", "ignore", "pipe"] });
    child = started;
    exited = new Promise((resolve) => started.once("exit", () => resolve()));
    let stderr = "";
    started.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    for (const deadline = Date.now() + 10_000; !(await answers(port));) {
      if (started.exitCode !== null || Date.now() > deadline) {
        throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Another server already on the port answers the PING while ours exits on "Address already in use".
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (started.exitCode !== null) throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
  };
  const kill = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL"); // a stalled (stopped) server dies of it too
    }
    await exited;
  };

  await start();
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : "";
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    start,
    kill,
    stall: () => child!.kill("SIGSTOP"),
    resume: () => child!.kill("SIGCONT"),
    async close() {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
