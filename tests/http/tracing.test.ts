// When tracing is on, then one GraphQL request yields one trace holding its HTTP server span, the GraphQL operation
// spans and the MongoDB command spans. The app runs in a child process (tests/helpers/traced-app.ts, built to
// dist/ by `npm test`'s tsc): OpenTelemetry patches modules through Node's require, which jest bypasses.
import { spawn } from "node:child_process";
import path from "node:path";
import { testDbName, testMongoUri } from "../helpers/database";

const REPO = path.resolve(__dirname, "../..");

interface ExportedSpan {
  name: string;
  scope: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

function runTracedRequest(): Promise<{ status: number; body: any; spans: ExportedSpan[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, "dist/tests/helpers/traced-app.js")], {
      env: { PATH: process.env.PATH, TEST_MONGODB_URI: testMongoUri(), TEST_DB_NAME: testDbName() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`traced app exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split("\n").pop()!));
    });
  });
}

describe("OpenTelemetry tracing", () => {
  it("when a GraphQL mutation is served, then its HTTP, GraphQL and MongoDB spans form one trace", async () => {
    const { status, body, spans } = await runTracedRequest();
    expect(status).toBe(200);
    expect(body.data.createTeacher.success).toBe(true);

    const server = spans.filter((s) => s.scope === "@opentelemetry/instrumentation-http" && s.kind === 1 /* SERVER */);
    expect(server).toHaveLength(1);
    const trace = spans.filter((s) => s.traceId === server[0].traceId);
    expect(server[0].parentSpanId).toBeUndefined();

    const graphql = trace.filter((s) => s.scope === "@opentelemetry/instrumentation-graphql");
    expect(graphql.map((s) => s.name)).toEqual(expect.arrayContaining(["graphql.parse", "graphql.validate", "mutation Traced"]));
    const mongodb = trace.filter((s) => s.scope === "@opentelemetry/instrumentation-mongodb");
    expect(mongodb.map((s) => s.name)).toEqual(expect.arrayContaining(["insert teachers"]));
    expect(trace.some((s) => s.scope === "@fastify/otel" && s.attributes["http.route"] === "/graphql")).toBe(true);
    // Every span of the request hangs under its server span: one tree, not several roots.
    const ids = new Set(trace.map((s) => s.spanId));
    expect(trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))).toEqual([server[0]]);
  });
});
