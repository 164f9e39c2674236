// Writes dist/src/main.bundle.js: the compiled service (dist/src/main.js and every module it loads at start) as one
// file, and its manifest (the compiled files it holds, to tell when it no longer matches them). `npm run build` runs
// it after tsc, and `npm start` (scripts/run.js) when the bundle is missing or stale. src/start-bundle.ts starts from
// it. esbuild only joins the JavaScript tsc emitted (decorator metadata included); it compiles no TypeScript.
// esbuild works in a child process (`esbuild --service`); it is stopped once the bundle is written, so a service
// started after bundling (npm start) has no esbuild beside it. The asynchronous API, because its child belongs to
// this thread: buildSync's lives in a worker thread, and stopping that worker leaves the child unreaped.
//
// Left out, loaded by `require` from node_modules as usual: packages the start does not load (the REST
// documentation, tokens, the embedded database's tools, tracing: each loaded on first use), packages that read their
// own files next to their code, and optional native add-ons that are not installed.
import fs from "node:fs";
import path from "node:path";
import { build, stop, type Plugin } from "esbuild";
import { REPO_ROOT } from "../src/shared/package-root";
import { writeManifest } from "../src/start-bundle";

const BUNDLE_EXTERNALS = [
  // Loaded on first use (src/rest/docs-instance, src/auth, src/db/embedded, src/tracing, lazy validators).
  "@fastify/swagger",
  "@fastify/swagger-ui",
  "@fastify/static",
  "jose",
  "ajv",
  "ajv-formats",
  "@fastify/ajv-compiler",
  "@fastify/fast-json-stringify-compiler",
  "fast-json-stringify",
  "mongodb-memory-server",
  "mongodb-memory-server-core",
  "diff",
  // The Redis client: loaded only with REDIS_URL (src/redis/index.ts).
  "ioredis",
  // Tracing's SDK (src/tracing.ts, loaded only when tracing is on). Not @opentelemetry/api: prom-client loads it at
  // start, and from node_modules that cost 8 ms of each start (its copies find each other through a global symbol).
  "@opentelemetry/sdk-*",
  "@opentelemetry/resources",
  "@opentelemetry/instrumentation*",
  "@opentelemetry/exporter-*",
  "@fastify/otel",
  // Optional peers and native add-ons of the driver, ws and type-graphql, absent unless a deployment adds them.
  "kerberos",
  "snappy",
  "@mongodb-js/zstd",
  "mongodb-client-encryption",
  "gcp-metadata",
  "socks",
  "aws4",
  "@aws-sdk/credential-providers",
  "bufferutil",
  "utf-8-validate",
  "class-validator",
];

/**
 * @apollo/utils.createhash hashes with Node's crypto only where `module.require` exists, and a bundle's module wrapper
 * has none: from the bundle, Apollo hashed every request's query with sha.js, SHA-256 written in JavaScript. The
 * bundled file calls `require` instead (the same function there), so the bundle hashes with Node's crypto as dist/
 * does.
 */
const apolloHashesWithNodeCrypto: Plugin = {
  name: "apollo-createhash-node-crypto",
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]@apollo[\\/]utils\.createhash[\\/]dist[\\/]index\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8");
      if (!text.includes("module.require")) {
        throw new Error(`${args.path} no longer reads module.require: check how it picks its hash (scripts/bundle.ts)`);
      }
      return { contents: text.replaceAll("module.require", "require"), loader: "js" };
    });
  },
};

export async function buildBundle(distSrc: string): Promise<string> {
  const bundle = path.join(distSrc, "main.bundle.js");
  const result = await build({
    entryPoints: [path.join(distSrc, "main.js")],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: bundle,
    external: BUNDLE_EXTERNALS,
    plugins: [apolloHashesWithNodeCrypto],
    metafile: true,
    write: false,
    logLevel: "error",
    // No keepNames: it wraps every function and class esbuild names (9,500 places) in a helper that redefines its
    // `name`, closures made per request included (in the driver, Mongoose, Fastify), which made the service's Node
    // CPU per project by id about 10 % higher from the bundle than without it (docs/performance.md). Without it, a
    // function keeps the name V8 gives it; esbuild renames only nested symbols that would shadow one of the bundle's
    // top-level names (in packages: a protobuf message class Error, dataloader's DataLoader), and type-graphql, which
    // names GraphQL types after classes, is checked: tests/foundation/process.test.ts compares the schema the bundle
    // serves with schema/schema.graphql.
    keepNames: false,
    // No comments or indentation: a third less text for each start to read (and a start's wall time 8 % shorter).
    minifyWhitespace: true,
  }).finally(() => stop());
  // ASCII only, so each start reads the text as one byte per character (Latin-1) instead of decoding UTF-8 into a
  // string of two bytes per character: esbuild escapes strings and identifiers, not regular expression literals or
  // the comments it keeps; \uXXXX means the same character in each of those.
  const text = result.outputFiles[0].text.replace(/[^\p{ASCII}]/gu, (unit, at: number, whole: string) => {
    // After a backslash an escape would change the meaning (a backslash and é, against a backslash and \u00e9):
    // refuse rather than guess.
    if (whole[at - 1] === "\\")
      throw new Error(`cannot write the bundle as ASCII: a backslash before ${unit} at ${at}`);
    // Each UTF-16 unit of the character (a character beyond U+FFFF is two).
    return Array.from({ length: unit.length }, (_, i) => `\\u${unit.charCodeAt(i).toString(16).padStart(4, "0")}`).join(
      "",
    );
  });
  // Through a temporary file: a service starting meanwhile (another `npm start`) reads the old bundle or the new
  // one, never half of one; the new manifest follows, so until then the new bundle counts as stale.
  const temporary = `${bundle}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, "latin1");
  fs.renameSync(temporary, bundle);
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes("node_modules"));
  writeManifest(bundle, [...inputs, path.join(REPO_ROOT, "package-lock.json")]);
  return bundle;
}

if (require.main === module) {
  const started = Date.now();
  void buildBundle(path.join(__dirname, "..", "src")).then(
    (bundle) =>
      process.stderr.write(
        `Bundled the service into ${path.relative(process.cwd(), bundle)} in ${Date.now() - started} ms\n`,
      ),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
