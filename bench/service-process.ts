// The service as a bench starts it: `node dist/src/index.js` of a built tree, on the embedded FerretDB in a data
// directory the bench chose, rate limit off, warnings only; resolved once GET /readyz answers 200.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/** Starts the service of the tree `root` on `port` with its data in `dataDir`; fails if it exits or is not ready in time. */
export async function startServiceProcess(
  name: string,
  root: string,
  port: number,
  dataDir: string,
  readyWithinMs = 300_000,
): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(root, "dist", "src", "index.js")], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_DB: "ferretdb",
      RATE_LIMIT_PER_MINUTE: "0",
      LOG_LEVEL: "warn",
      MONGODB_URI: "",
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
