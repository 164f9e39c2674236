// Run as a child process by tests/http/tracing.test.ts (compiled to dist/): instrumentations patch modules through
// Node's require, which jest's module registry bypasses, so the traced app must run in a plain Node process. Sets up
// tracing with an in-memory exporter BEFORE loading the app, serves one GraphQL request, and prints the response
// and every finished span as one JSON line.
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { startTracing } from "../../src/tracing";

const exporter = new InMemorySpanExporter();
const provider = startTracing({ exporter, immediate: true });

async function main(): Promise<void> {
  // Loaded only now, after the instrumentations are registered.
  /* eslint-disable @typescript-eslint/no-require-imports -- the order of loading is the point */
  require("reflect-metadata");
  const { createApp } = require("../../src/app") as typeof import("../../src/app");
  const { openDatabase } = require("../../src/persistence") as typeof import("../../src/persistence");
  const pino = require("pino") as typeof import("pino");
  const { testAppConfig } = require("./app-config") as typeof import("./app-config");
  /* eslint-enable @typescript-eslint/no-require-imports */

  const db = await openDatabase(process.env.TEST_MONGODB_URI!, { dbName: process.env.TEST_DB_NAME });
  const app = await createApp({
    config: testAppConfig(),
    logger: pino({ level: "silent" }),
    db,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  exporter.reset(); // only the spans of the one request below

  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user-role": "admin" },
    body: JSON.stringify({
      query: 'mutation Traced { createTeacher(input: { teacher_name: "Traced" }) { success data { teacher_id } } }',
    }),
  });
  const body = await response.json();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    scope: span.instrumentationScope.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: span.attributes,
  }));
  process.stdout.write(`${JSON.stringify({ status: response.status, body, spans })}\n`);
  await app.close();
  await db.connection.dropDatabase();
  await db.close();
  await provider.shutdown();
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
