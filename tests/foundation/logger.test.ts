// When the service logs in production (or to a pipe), then pino-pretty is never loaded: it is required only for
// readable lines in a terminal outside production. Checked in a fresh Node process on the built logger module.
import { spawnSync } from "node:child_process";
import path from "node:path";

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
