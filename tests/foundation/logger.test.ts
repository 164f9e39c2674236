// When the service logs in production (or to a pipe), then pino-pretty is never loaded: it is required only for
// readable lines in a terminal outside production. Checked in a fresh Node process on the built logger module. The
// JSON lines of one turn of the event loop are written together, every line arrives, in order, and process.exit()
// right after a log call loses none.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { TurnBatchedLines } from "../../src/logger";

const LOGGER = path.resolve(__dirname, "../../dist/src/logger.js");

function prettyLoaded(production: boolean, tty: boolean): boolean {
  const script = `
    if (${tty}) Object.defineProperty(process.stdout, "isTTY", { value: true });
    require(${JSON.stringify(LOGGER)}).createLogger({ level: "silent", production: ${production} });
    process.stderr.write(String(Object.keys(require.cache).some((file) => file.includes("pino-pretty"))));
  `;
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  expect(result.status).toBe(0);
  return result.stderr.trim() === "true";
}

describe("logger", () => {
  it("when running in production, then pino-pretty is not loaded, even on a terminal", () => {
    expect(prettyLoaded(true, true)).toBe(false);
  });

  it("when output is a pipe outside production, then pino-pretty is not loaded", () => {
    expect(prettyLoaded(false, false)).toBe(false);
  });

  it("when output is a terminal outside production, then pino-pretty formats the lines", () => {
    expect(prettyLoaded(false, true)).toBe(true);
  });
});

describe("log lines written once per turn of the event loop", () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it("when several lines are logged in one turn, then they are written together, in order, at its end", async () => {
    const writes: string[] = [];
    const lines = new TurnBatchedLines({ write: (text) => writes.push(text) });

    lines.write("a\n");
    lines.write("b\n");
    lines.write("c\n");
    expect(writes).toEqual([]);
    await turn();

    expect(writes).toEqual(["a\nb\nc\n"]);
  });

  it("when lines are logged in later turns, then each turn's lines are a write of their own", async () => {
    const writes: string[] = [];
    const lines = new TurnBatchedLines({ write: (text) => writes.push(text) });

    lines.write("1\n");
    await turn();
    lines.write("2\n");
    lines.write("3\n");
    await turn();
    await turn();

    expect(writes).toEqual(["1\n", "2\n3\n"]);
  });

  it("when flush is called, then the lines kept are written at once, and its callback runs", () => {
    const writes: string[] = [];
    const lines = new TurnBatchedLines({ write: (text) => writes.push(text) });
    const done = jest.fn();

    lines.write("x\n");
    lines.flush(done);

    expect(writes).toEqual(["x\n"]);
    expect(done).toHaveBeenCalledTimes(1);
  });

  it("when the service's logger logs to a pipe and the process exits at once, then every line arrives, in order", () => {
    const script = `
      const logger = require(${JSON.stringify(LOGGER)}).createLogger({ level: "info", production: true });
      for (let i = 0; i < 500; i++) logger.info({ i }, "line");
      setImmediate(() => {
        logger.info({ i: 500 }, "after a turn");
        logger.fatal({ i: 501 }, "last");
        process.exit(3);
      });
    `;
    const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });

    expect(result.status).toBe(3);
    const logged = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { i: number; msg: string });
    expect(logged.map((line) => line.i)).toEqual(Array.from({ length: 502 }, (_, i) => i));
    expect(logged.at(-1)!.msg).toBe("last");
  });
});
