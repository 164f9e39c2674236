// When the service is deployed as a container (no Docker engine runs here, so the files are checked, not built),
// then the Dockerfile runs only commands package.json provides on files that exist, ends in a non-root production
// stage on Node 26 (the active LTS, slim, within package.json's engines) that starts dist/src/index.js, and compose.yaml runs it beside a MongoDB 7 replica set, passing only
// variables the service reads.
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { SERVICE_VARIABLES } from "../../src/config";

const REPO = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(REPO, file), "utf8");

/** Dockerfile instructions, continuation lines joined. */
function instructions(): { op: string; args: string }[] {
  return read("Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(" ") };
    });
}

/** The environment variables the service reads: the keys of src/config.ts's SERVICE_VARIABLES. */
function configVariables(): Set<string> {
  return new Set(Object.keys(SERVICE_VARIABLES.shape));
}

describe("Dockerfile", () => {
  const steps = instructions();
  const stages = steps.map((s, i) => ({ ...s, i })).filter((s) => s.op === "FROM");
  const finalStage = steps.slice(stages[stages.length - 1].i);
  const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;

  it("when built, then it has a build stage and a final stage on Node 26, slim, a version package.json's engines accept", () => {
    expect(stages.length).toBe(2);
    for (const stage of stages) expect(stage.args).toMatch(/^node:26-[a-z]+-slim( AS \w+)?$/i);
    const engines = JSON.parse(read("package.json")).engines.node as string;
    expect(engines.split("||").some((range) => /^>=\s*2[0-6][.\d]*$/.test(range.trim()))).toBe(true);
  });

  // npm ci: exactly the lockfile's tree, refused when package.json and the lockfile disagree; no install scripts.
  it("when a RUN step calls npm, then it installs the locked tree (lockfile copied first) or runs a script package.json has", () => {
    const runs = steps.filter((s) => s.op === "RUN");
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) {
      for (const command of run.args.split("&&").map((c) => c.trim())) {
        const script = /^npm run (\S+)/.exec(command)?.[1];
        if (script) expect(Object.keys(scripts)).toContain(script);
        else
          expect(command).toMatch(/^npm (ci( --omit=dev)? --ignore-scripts --no-audit --no-fund|cache clean --force)$/);
      }
    }
    expect(fs.existsSync(path.join(REPO, "package-lock.json"))).toBe(true);
  });

  it("when it copies from the build context, then every source exists", () => {
    for (const copy of steps.filter((s) => s.op === "COPY" && !s.args.startsWith("--from"))) {
      const sources = copy.args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect(fs.existsSync(path.join(REPO, source))).toBe(true);
    }
  });

  it("when the container starts, then it runs the compiled entry point as a non-root user with NODE_ENV=production", () => {
    expect(finalStage.find((s) => s.op === "CMD")?.args).toBe(
      '["node", "--max-semi-space-size=64", "dist/src/index.js"]',
    );
    // The container gives node the options `npm start` gives it (docs/performance.md: V8's young generation).
    expect(scripts.start).toBe("exec node --max-semi-space-size=64 scripts/run.js dist/src/index.js");
    // tsc -p tsconfig.build.json compiles src/index.ts to dist/src/index.js.
    expect(fs.existsSync(path.join(REPO, "src/index.ts"))).toBe(true);
    expect(JSON.parse(read("tsconfig.json")).compilerOptions.outDir).toBe("dist");
    expect(scripts.build).toContain("tsconfig.build.json");
    expect(finalStage.find((s) => s.op === "ENV")?.args).toBe("NODE_ENV=production");
    const user = finalStage.find((s) => s.op === "USER")?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    expect(finalStage.find((s) => s.op === "COPY" && s.args.startsWith("--from"))?.args).toBe(
      "--from=build /app/dist ./dist",
    );
    expect(finalStage.find((s) => s.op === "RUN")?.args).toContain("npm ci --omit=dev");
  });

  it("when Docker checks its health, then node's fetch asks GET /readyz", () => {
    const check = finalStage.find((s) => s.op === "HEALTHCHECK")!.args;
    expect(check).toContain('CMD ["node", "-e", "fetch(');
    expect(check).toContain("/readyz");
    expect(read("src/health.routes.ts")).toContain('"/readyz"');
  });

  it("when the build context is sent, then .dockerignore leaves out local modules, build output, data and secrets", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "dist", ".data", ".git", ".env"]));
  });
});

describe("compose.yaml", () => {
  const compose = parse(read("compose.yaml"));

  it("when started, then MongoDB 7 runs as a single-node replica set that its healthcheck initiates", () => {
    const mongo = compose.services.mongo;
    expect(mongo.image).toBe("mongo:7");
    expect(mongo.command).toEqual(expect.arrayContaining(["--replSet", "rs0"]));
    const check = mongo.healthcheck.test.join(" ");
    expect(check).toContain("mongosh");
    expect(check).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
  });

  it("when started, then the service is built from the Dockerfile and waits for a healthy MongoDB", () => {
    const api = compose.services.api;
    expect(api.build).toBe(".");
    expect(api.depends_on.mongo.condition).toBe("service_healthy");
    expect(api.environment.MONGODB_URI).toBe("mongodb://mongo:27017/project_service?replicaSet=rs0");
    expect(api.environment.NODE_ENV).toBe("production");
  });

  it("when it configures the service, then it names only variables src/config.ts reads and holds no secret value", () => {
    const known = configVariables();
    expect(known.has("MONGODB_URI")).toBe(true);
    const names = Object.keys(compose.services.api.environment);
    expect(names.filter((name) => !known.has(name))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining([
        "MONGODB_URI",
        "AUTH_JWT_SECRET",
        "CORS_ORIGINS",
        "RATE_LIMIT_PER_MINUTE",
        "METRICS_TOKEN",
      ]),
    );
    expect(compose.services.api.environment.AUTH_JWT_SECRET).toMatch(/^\$\{AUTH_JWT_SECRET:\?.+\}$/);
    expect(compose.services.api.environment.METRICS_TOKEN).toMatch(/^\$\{METRICS_TOKEN:-\}$/);
  });
});
