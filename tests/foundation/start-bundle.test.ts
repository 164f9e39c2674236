// The service starts from its bundle only while the bundle matches the compiled files it was built from, and uses
// V8's code cache only for the very bundle text it was taken from: a stale bundle or cache must never run old code.
// Each case starts a real Node process on a small bundle of its own (through the compiled src/start-bundle.ts, as
// src/index.ts does) and reads what it ran.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO = path.resolve(__dirname, "../..");
const START_BUNDLE = path.join(REPO, "dist/src/start-bundle.js");

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
  input = path.join(dir, "main.js");
  fs.writeFileSync(input, "// a compiled file the bundle holds\n");
  writeBundle(41);
  writeManifest();
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("starting from the bundle", () => {
  it("when the bundle matches its files, then the first start runs it and keeps V8's code cache, and the next one uses the cache", () => {
    expect(start()).toEqual({ started: true, codeCache: "written at exit", answer: 41 });
    expect(fs.existsSync(`${bundle}.cache`)).toBe(true);

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
    fs.writeFileSync(`${bundle}.cache`, "not a cache");

    expect(start()).toEqual({ started: true, codeCache: "written at exit", answer: 41 });
    expect(start()).toEqual({ started: true, codeCache: "used", answer: 41 });
  });

  it("when a start ends before it is ready (a configuration error), then it leaves no cache behind", () => {
    expect(start({ ready: false })).toEqual({ started: true, codeCache: "written at exit", answer: 41 });

    expect(fs.existsSync(`${bundle}.cache`)).toBe(false);
  });
});
