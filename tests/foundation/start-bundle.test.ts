// The service starts from its bundle only while the bundle matches the compiled files it was built from, and uses
// V8's code cache only for the very bundle text it was taken from: a stale bundle or cache must never run old code.
// On Node >= 22 Node's compile cache is on for what `require` loads. Bundling leaves no esbuild process behind.
// Each case starts a real Node process on a small bundle of its own (through the compiled src/start-bundle.ts and
// scripts/bundle.ts, as src/index.ts and scripts/run.js do) and reads what it ran.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..");
const START_BUNDLE = path.join(REPO, "dist/src/start-bundle.js");
const BUNDLE_SCRIPT = path.join(REPO, "dist/scripts/bundle.js");
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

interface Run {
  /** Whether it started from the bundle (false: the caller would load dist/). */
  started: boolean;
  codeCache?: string;
  /** What the bundle's code set. */
  answer?: number;
}

let dir: string;
let bundle: string;
let input: string;
/** The code cache of this Node version, beside the bundle. */
let cache: string;

/** Starts a process that runs the bundle as src/index.ts does; `ready` says the start got as far as listening. */
function start(options: { ready?: boolean; env?: NodeJS.ProcessEnv } = {}): Run {
  const program = `
    const { startFromBundle, STARTED_FROM } = require(${JSON.stringify(START_BUNDLE)});
    const started = startFromBundle(${JSON.stringify(bundle)});
    const from = globalThis[STARTED_FROM];
    if (started && ${options.ready !== false}) from.ready();
    console.log(JSON.stringify({ started, codeCache: from && from.codeCache, answer: globalThis.answer }));
  `;
  const env = { PATH: process.env.PATH, ...options.env };
  const result = spawnSync(process.execPath, ["-e", program], { env, encoding: "utf8" });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as Run;
}

/** A bundle whose code sets `answer`, padded so that two answers of the same number of digits have the same length. */
function writeBundle(answer: number): void {
  fs.writeFileSync(bundle, `globalThis.answer = ${answer};\nfunction unused() { return ${"1 + ".repeat(200)}1; }\n`);
}

/** As scripts/bundle.ts records it after building: the compiled files the bundle was built from. */
function writeManifest(): void {
  // Loaded from dist/ like the rest: the same function scripts/bundle.ts calls.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { writeManifest: record } = require(START_BUNDLE) as typeof import("../../src/start-bundle");
  record(bundle, [input]);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-bundle-"));
  bundle = path.join(dir, "main.bundle.js");
  cache = `${bundle}.${process.version}-${process.arch}.cache`;
  input = path.join(dir, "main.js");
  fs.writeFileSync(input, "// a compiled file the bundle holds\n");
  writeBundle(41);
  writeManifest();
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("starting from the bundle", () => {
  it("when the bundle matches its files, then the first start runs it and keeps V8's code cache, and the next one uses the cache", () => {
    expect(start()).toEqual({ started: true, codeCache: "written at exit", answer: 41 });
    expect(fs.existsSync(cache)).toBe(true);

    expect(start()).toEqual({ started: true, codeCache: "used", answer: 41 });
  });

  it("when the started process keeps running, then the cache is written soon after it is ready, not only at its exit", () => {
    // The process is killed (no exit handler runs) after the delay: only the write after ready() can leave a cache.
    const program = `
      const fs = require("node:fs");
      const { startFromBundle, STARTED_FROM, CODE_CACHE_AFTER_READY_MS } = require(${JSON.stringify(START_BUNDLE)});
      startFromBundle(${JSON.stringify(bundle)});
      globalThis[STARTED_FROM].ready();
      const before = fs.existsSync(${JSON.stringify(cache)});
      setTimeout(() => {
        console.log(JSON.stringify({ before, after: fs.existsSync(${JSON.stringify(cache)}) }));
        process.kill(process.pid, "SIGKILL");
      }, CODE_CACHE_AFTER_READY_MS + 1000);
    `;
    const result = spawnSync(process.execPath, ["-e", program], { env: { PATH: process.env.PATH }, encoding: "utf8" });
    expect(JSON.parse(result.stdout)).toEqual({ before: false, after: true });
    expect(start()).toEqual({ started: true, codeCache: "used", answer: 41 });
  });

  it("when the bundle's text changed but kept its length and time, then the old cache is not used: the new code runs", () => {
    start();
    const { atime, mtime } = fs.statSync(bundle);
    writeBundle(42);
    fs.utimesSync(bundle, atime, mtime);

    expect(start()).toEqual({ started: true, codeCache: "written at exit", answer: 42 });
    expect(start()).toEqual({ started: true, codeCache: "used", answer: 42 });
  });

  it("when a compiled file changed after the bundle was built (a tsc run), then it does not start from the bundle", () => {
    fs.appendFileSync(input, "// changed\n");

    expect(start()).toEqual({ started: false });
  });

  it("when the manifest or the bundle is missing, then it does not start from the bundle", () => {
    fs.rmSync(`${bundle}.json`);
    expect(start()).toEqual({ started: false });

    writeManifest();
    fs.rmSync(bundle);
    expect(start()).toEqual({ started: false });
  });

  it("when tracing is on, then it starts from dist/ (its instrumentations patch modules as require loads them)", () => {
    expect(start({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" } })).toEqual({ started: false });
  });

  it("when the cache file is damaged, then the bundle still runs and the cache is written again", () => {
    start();
    fs.writeFileSync(cache, "not a cache");

    expect(start()).toEqual({ started: true, codeCache: "written at exit", answer: 41 });
    expect(start()).toEqual({ started: true, codeCache: "used", answer: 41 });
  });

  it("when a start ends before it is ready (a configuration error), then it leaves no cache behind", () => {
    expect(start({ ready: false })).toEqual({ started: true, codeCache: "written at exit", answer: 41 });

    expect(fs.existsSync(cache)).toBe(false);
  });
});

describe("Node's compile cache", () => {
  it("when the service starts, then on Node >= 22 what `require` loads goes through Node's compile cache in NODE_COMPILE_CACHE, and Node 20 says it has none", () => {
    const cacheDir = path.join(dir, "compile-cache");
    fs.writeFileSync(path.join(dir, "loaded-later.js"), "module.exports = 7;\n");
    const program = `
      const { startFromBundle, STARTED_FROM } = require(${JSON.stringify(START_BUNDLE)});
      startFromBundle(${JSON.stringify(bundle)});
      const later = require(${JSON.stringify(path.join(dir, "loaded-later.js"))});
      console.log(JSON.stringify({ compileCache: globalThis[STARTED_FROM].compileCache, later }));
    `;
    const result = spawnSync(process.execPath, ["-e", program], {
      env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: cacheDir },
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    const { compileCache, later } = JSON.parse(result.stdout) as { compileCache: string; later: number };
    expect(later).toBe(7);
    if (NODE_MAJOR >= 22) {
      expect(compileCache).toMatch(new RegExp(`^in ${cacheDir}/v${process.versions.node}-`));
      // Written at exit: an entry per module loaded by require (the -e program itself is not one).
      const [versionDir] = fs.readdirSync(cacheDir);
      expect(fs.readdirSync(path.join(cacheDir, versionDir)).length).toBeGreaterThan(0);
    } else {
      expect(compileCache).toBe("none before Node 22");
    }
  });
});

describe("bundling", () => {
  it("when Apollo's hash helper is bundled, then it hashes with Node's crypto, as it does from node_modules", () => {
    const createhash = path.join(REPO, "node_modules/@apollo/utils.createhash");
    fs.writeFileSync(
      input,
      `const hash = require(${JSON.stringify(createhash)}).createHash("sha256");
       globalThis.answer = { native: hash instanceof require("node:crypto").Hash, hex: hash.update("{ a }").digest("hex") };\n`,
    );
    const program = `
      require(${JSON.stringify(BUNDLE_SCRIPT)}).buildBundle(${JSON.stringify(dir)}).then((written) => {
        require(written);
        console.log(JSON.stringify(globalThis.answer));
      });
    `;
    const result = spawnSync(process.execPath, ["-e", program], { env: { PATH: process.env.PATH }, encoding: "utf8" });

    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      native: true,
      hex: createHash("sha256").update("{ a }").digest("hex"),
    });
  });

  it("when the bundle is written, then no esbuild process is left running and the process that bundled exits by itself", () => {
    fs.writeFileSync(input, "globalThis.answer = require('./part.js');\n");
    fs.writeFileSync(path.join(dir, "part.js"), "module.exports = 43;\n");
    // After buildBundle resolves: the children of this process (Linux /proc: field 4 of stat is the parent's id).
    const program = `
      const fs = require("node:fs");
      const children = () => fs.readdirSync("/proc").filter((pid) => /^\\d+$/.test(pid)).filter((pid) => {
        try { return fs.readFileSync("/proc/" + pid + "/stat", "utf8").split(") ")[1].split(" ")[1] === String(process.pid); }
        catch { return false; }
      });
      require(${JSON.stringify(BUNDLE_SCRIPT)}).buildBundle(${JSON.stringify(dir)}).then(async (written) => {
        // A child killed by esbuild.stop() is reaped by Node's event loop once its exit is signalled.
        for (let i = 0; i < 100 && children().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
        console.log(JSON.stringify({ written, children: children() }));
      });
    `;
    const result = spawnSync(process.execPath, ["-e", program], {
      env: { PATH: process.env.PATH },
      encoding: "utf8",
      timeout: 30_000,
    });
    // spawnSync returns once the process has exited: nothing (esbuild's child or its pipes) held it open.
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ written: bundle, children: [] });

    expect(start()).toEqual({ started: true, codeCache: "written at exit", answer: 43 });
  });
});
