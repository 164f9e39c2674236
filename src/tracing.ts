// OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans for HTTP requests (node:http and
// Fastify's routes), GraphQL operations (parse, validate, execute; no per-field spans, which would cost more than
// the work they describe) and MongoDB commands, exported over OTLP/HTTP to <endpoint>/v1/traces.
// src/main.ts imports this module FIRST: instrumentations patch modules as they are required, so tracing must be
// set up before http, fastify, graphql and mongodb load. Without the variable nothing here loads the SDK.
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { loadTracingConfig, type TracingConfig } from "./config";
import { ConfigError } from "./shared/environment";

/** Probes and scrapes are not worth a trace each. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export interface TracingOptions {
  exporter: SpanExporter;
  /** Export each span as it ends (tests) instead of in batches (the service). */
  immediate?: boolean;
  /** service.name of the spans (OTEL_SERVICE_NAME in the service's configuration). */
  serviceName?: string;
}

/** Registers the tracer provider and the instrumentations; call before the instrumented modules load. */
export function startTracing({
  exporter,
  immediate = false,
  serviceName = "project-service",
}: TracingOptions): NodeTracerProvider {
  // Required here, not imported at the top: the SDK loads only when tracing is on.
  /* eslint-disable @typescript-eslint/no-require-imports -- lazy on purpose (see above) */
  const { NodeTracerProvider } =
    require("@opentelemetry/sdk-trace-node") as typeof import("@opentelemetry/sdk-trace-node");
  const { BatchSpanProcessor, SimpleSpanProcessor } =
    require("@opentelemetry/sdk-trace-base") as typeof import("@opentelemetry/sdk-trace-base");
  const { resourceFromAttributes } = require("@opentelemetry/resources") as typeof import("@opentelemetry/resources");
  const { registerInstrumentations } =
    require("@opentelemetry/instrumentation") as typeof import("@opentelemetry/instrumentation");
  const { HttpInstrumentation } =
    require("@opentelemetry/instrumentation-http") as typeof import("@opentelemetry/instrumentation-http");
  const { FastifyOtelInstrumentation } = require("@fastify/otel") as typeof import("@fastify/otel");
  const { GraphQLInstrumentation } =
    require("@opentelemetry/instrumentation-graphql") as typeof import("@opentelemetry/instrumentation-graphql");
  const { MongoDBInstrumentation } =
    require("@opentelemetry/instrumentation-mongodb") as typeof import("@opentelemetry/instrumentation-mongodb");
  /* eslint-enable @typescript-eslint/no-require-imports */

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [immediate ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? "").split("?")[0]),
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: ({ url }) => UNTRACED_PATHS.has(url),
      }),
      new GraphQLInstrumentation({ ignoreResolveSpans: true, mergeItems: true }),
      new MongoDBInstrumentation(),
    ],
  });
  return provider;
}

/** The service's tracing: on when the configuration names an OTLP endpoint (an invalid one is reported by src/main.ts). */
function startConfiguredTracing(): NodeTracerProvider | undefined {
  let config: TracingConfig;
  try {
    config = loadTracingConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
  const endpoint = config.otelEndpoint;
  if (!endpoint) return undefined;
  // The exporter, too, loads only when tracing is on.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { OTLPTraceExporter } =
    require("@opentelemetry/exporter-trace-otlp-http") as typeof import("@opentelemetry/exporter-trace-otlp-http");
  /* eslint-enable @typescript-eslint/no-require-imports */
  return startTracing({
    exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }),
    serviceName: config.otelServiceName,
  });
}

export const tracerProvider = startConfiguredTracing();
