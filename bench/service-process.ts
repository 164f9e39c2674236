// The service as a bench starts it: `node dist/src/index.js` of a built tree with the node options of that tree's
// `npm start`, on the embedded FerretDB in a data directory the bench chose, rate limit off, warnings only; resolved
// once GET /readyz answers 200.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * The node options the tree's `npm start` gives the service (`exec node <options> scripts/run.js …` in its
 * package.json), so a bench runs each build as it starts, an earlier commit's with that commit's own.
 */
export function startNodeArgs(root: string): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const start = /^exec node((?:\s+--\S+)*)\s+scripts\/run\.js\s/.exec(scripts.start ?? "");
  if (!start) throw new Error(`${root}/package.json: npm start is not "exec node [options] scripts/run.js …"`);
  return start[1].split(/\s+/).filter(Boolean);
}

/** Starts the service of the tree `root` on `port` with its data in `dataDir`; fails if it exits or is not ready in time. */
export async function startServiceProcess(
  name: string,
  root: string,
  port: number,
  dataDir: string,
  readyWithinMs = 300_000,
  /** More of the environment, e.g. MONGODB_URI naming another instance's FerretDB. */
  env: Record<string, string> = {},
): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [...startNodeArgs(root), path.join(root, "dist", "src", "index.js")], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_DB: "ferretdb",
      RATE_LIMIT_PER_MINUTE: "0",
      LOG_LEVEL: "warn",
      MONGODB_URI: "",
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, process: child };
    if (Date.now() > until) throw new Error(`${name} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
