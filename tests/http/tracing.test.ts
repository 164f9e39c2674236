// When tracing is on, then one GraphQL request yields one trace holding its HTTP server span, the GraphQL operation
// spans and the MongoDB command spans. The app runs in a child process (tests/helpers/traced-app.ts, built to
// dist/ by `npm test`'s tsc): OpenTelemetry patches modules through Node's require, which jest bypasses.
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";
import { dropTestDatabase, openTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import type { TeacherDocumentBody } from "../helpers/app";

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

function runTracedRequest(): Promise<{ status: number; body: TeacherDocumentBody; spans: ExportedSpan[] }> {
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
    expect(body.data!.createTeacher.success).toBe(true);

    const server = spans.filter((s) => s.scope === "@opentelemetry/instrumentation-http" && s.kind === 1 /* SERVER */);
    expect(server).toHaveLength(1);
    const trace = spans.filter((s) => s.traceId === server[0].traceId);
    expect(server[0].parentSpanId).toBeUndefined();

    const graphql = trace.filter((s) => s.scope === "@opentelemetry/instrumentation-graphql");
    expect(graphql.map((s) => s.name)).toEqual(
      expect.arrayContaining(["graphql.parse", "graphql.validate", "mutation Traced"]),
    );
    const mongodb = trace.filter((s) => s.scope === "@opentelemetry/instrumentation-mongodb");
    expect(mongodb.map((s) => s.name)).toEqual(expect.arrayContaining(["insert teachers"]));
    expect(trace.some((s) => s.scope === "@fastify/otel" && s.attributes["http.route"] === "/graphql")).toBe(true);
    // Every span of the request hangs under its server span: one tree, not several roots.
    const ids = new Set(trace.map((s) => s.spanId));
    expect(trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))).toEqual([server[0]]);
  });

  it("when the service runs with OTEL_EXPORTER_OTLP_ENDPOINT, then its spans reach the collector at /v1/traces by the time it stops", async () => {
    const received: { path?: string; type?: string; body: string }[] = [];
    const collector = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        received.push({ path: request.url, type: request.headers["content-type"], body });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const port = (collector.address() as { port: number }).port;
    const dbName = testDbName();
    try {
      const child = spawn(process.execPath, [path.join(REPO, "dist/src/index.js")], {
        env: {
          PATH: process.env.PATH,
          PORT: "0",
          MONGODB_URI: `${testMongoUri().replace(/\/$/, "")}/${dbName}`,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        },
        stdio: ["ignore", "pipe", "inherit"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      const url = await new Promise<string>((resolve, reject) => {
        readline.createInterface({ input: child.stdout! }).on("line", (line) => {
          const ready = /Ready: (\S+)\/graphql/.exec(JSON.parse(line).msg ?? "");
          if (ready) resolve(ready[1]);
        });
        child.once("exit", (code) => reject(new Error(`service exited with ${code}`)));
      });
      const response = await fetch(`${url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-user-role": "admin" },
        body: JSON.stringify({ query: "query Exported { teachers(limit: 1) { total } }" }),
      });
      expect(response.status).toBe(200);

      child.kill("SIGTERM");
      expect(await exited).toBe(0);

      const exported = received.filter((r) => r.path === "/v1/traces");
      expect(exported.length).toBeGreaterThanOrEqual(1);
      const all = exported.map((r) => r.body).join("\n");
      expect(all).toContain("query Exported");
      expect(all).toContain("POST /graphql");
      expect(all).toContain("project-service");
    } finally {
      collector.close();
      await dropTestDatabase(await openTestDatabase(dbName));
    }
  });
});
