// createApp(): the HTTP application (Fastify + Apollo at /graphql + health + REST facade, with CORS, the explorer
// and /docs for browsers), without listening, so tests run it in-process and src/main.ts starts it.
import fastifyCors from "@fastify/cors";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { appErrorHandler, appNotFoundHandler } from "./answers/http-fallback";
import { createAuthenticator } from "./auth/authenticator";
import type { ProjectAccessPolicy, StatusWorkflow } from "./components/projects";
import type { WebhooksFile } from "./components/webhooks";
import type { Config } from "./config";
import type { Database } from "./persistence";
import { formatGraphqlError } from "./answers/graphql-error";
import { createApolloServer } from "./graphql/apollo";
import { createDocumentPolicy } from "./graphql/document-policy";
import { createLoaders, type Context } from "./graphql/context";
import { explorerAssets } from "./graphql/explorer";
import { registerHealthRoutes } from "./health.routes";
import { corsOptions, registerPreflightCheck } from "./http/cors";
import { callerOf } from "./http/caller";
import { operationOutcomePlugin, withRequest } from "./http/graphql-operations";
import { lazySchemaController } from "./http/lazy-schemas";
import { Metrics } from "./http/metrics";
import { registerOperations } from "./http/operations";
import { registerRequestIdHeader, requestIdFor } from "./http/request-id";
import { OneLineRequestLog } from "./request-log";
import { registerDraining, serverOptions } from "./http/server-options";
import { docsPlugin } from "./rest/docs";
import { restPlugin } from "./rest/rest.plugin";
import type { Logger } from "./logger";
import { createServices } from "./services";
import { registerGraphqlEndpoint } from "./live/graphql-endpoint";
import { LiveServer } from "./live/graphql-ws";
import { servedSchema } from "./graphql/schema";
import { openSharedState } from "./redis";
import type { EmbeddedSupervisor } from "./db/embedded-supervisor";

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The part of the service's configuration the app reads (tests and the bench build one with the same fields). */
export type AppConfig = Pick<
  Config<StatusWorkflow, ProjectAccessPolicy, WebhooksFile>,
  | "auth"
  | "statusWorkflow"
  | "accessPolicy"
  | "production"
  | "corsOrigins"
  | "explorer"
  | "rateLimitPerMinute"
  | "metricsToken"
  | "subscriptionPollMs"
  | "subscriptionsPerConnection"
  | "wsMaxConnections"
  | "trustedDocuments"
  | "trustedDocumentsOnly"
  | "federation"
  | "redisUrl"
  | "webhooks"
  | "webhooksAllowPrivate"
  | "webhooksRetentionDays"
  | "webhooksRetryScale"
  | "webhooksLeaseMs"
>;

export interface AppOptions {
  config: AppConfig;
  logger: Logger;
  db: Database;
  /** The embedded database's supervisor, when the service started one: GET /metrics counts its restarts. */
  supervisor?: EmbeddedSupervisor;
}

export async function createApp({ config, logger, db, supervisor }: AppOptions): Promise<FastifyInstance> {
  // Typed as Fastify's base logger, not pino's Logger: Fastify's instance type is generic in its logger, and the
  // routes and plugins (and tests) take the default FastifyInstance, whose logger is FastifyBaseLogger.
  const loggerInstance: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance,
    logController: new OneLineRequestLog(),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: requestIdFor,
    schemaController: lazySchemaController,
    ...serverOptions,
  });
  // First of all hooks, so every answer carries x-request-id: CORS preflights and 503s while draining too.
  registerRequestIdHeader(app);
  registerDraining(app);

  // Every failure no operation answers itself, in the shape its route's clients read (answers/http-fallback.ts).
  app.setErrorHandler(appErrorHandler);
  app.setNotFoundHandler(appNotFoundHandler);
  // First, so every answer (errors and rate-limit refusals too) carries the CORS headers a browser needs to read it.
  registerPreflightCheck(app);
  await app.register(fastifyCors, corsOptions(config));

  const metrics = new Metrics();
  const services = createServices(db, config.statusWorkflow, logger, config.subscriptionPollMs, config.accessPolicy, {
    file: config.webhooks,
    allowPrivate: config.webhooksAllowPrivate,
    retentionDays: config.webhooksRetentionDays,
    retryScale: config.webhooksRetryScale,
    leaseMs: config.webhooksLeaseMs,
    onOutcome: (endpoint, outcome) => metrics.webhookDeliveries.inc({ endpoint, outcome }),
  });
  // Row rules name claims: in header mode they come in X-User-Claims, read only when there are rules.
  const authenticator = createAuthenticator(config.auth, { claimsHeader: config.accessPolicy !== undefined });
  const stopObservingDb = metrics.observeDatabase(db.connection.getClient(), db.writes);
  if (supervisor) metrics.observeEmbeddedDatabase(supervisor);
  metrics.observeWebhooks(() => services.webhooks.health());
  // REDIS_URL: rate limits and automatic persisted queries shared by every instance (each falls back to its own).
  const shared = config.redisUrl
    ? await openSharedState(config.redisUrl, { logger, onError: () => metrics.redisErrors.inc() })
    : undefined;
  await registerOperations(app, { config, authenticator, metrics, rateLimitStore: shared?.rateLimitStore });

  const policy = createDocumentPolicy({
    production: config.production,
    trust: { documents: config.trustedDocuments, only: config.trustedDocumentsOnly },
  });
  const schema = servedSchema(config);
  const apollo = createApolloServer({
    schema,
    logger,
    production: config.production,
    policy,
    explorer: config.explorer,
    plugins: [operationOutcomePlugin(metrics)],
    documentCache: shared?.documentCache,
  });
  await apollo.start();
  // Before the first request: every endpoint's cursor exists, so no change committed from now on is missed.
  await services.webhookDispatcher?.start();
  app.addHook("onClose", async () => {
    await services.webhookDispatcher?.stop();
    await apollo.stop();
    services.projectChanges.stop();
    stopObservingDb();
    await shared?.close();
  });
  const live = new LiveServer({
    schema,
    policy,
    authenticator,
    services,
    metrics,
    maxConnections: config.wsMaxConnections,
    subscriptionsPerConnection: config.subscriptionsPerConnection,
    formatError: (formatted, error) => formatGraphqlError(formatted, error, logger),
    rateLimit: app.hasDecorator("createRateLimit") ? app.createRateLimit() : undefined,
  });
  await registerGraphqlEndpoint(app, {
    apollo,
    live,
    context: async (request): Promise<Context> => {
      const caller = await callerOf(request, authenticator);
      const access = services.projects.accessOf(caller);
      return withRequest(request, {
        caller,
        access,
        services,
        loaders: createLoaders(services, access),
        logger: request.log,
      });
    },
  });

  await app.register(explorerAssets, config);
  await app.register(restPlugin, { services, authenticator });
  await app.register(docsPlugin);
  registerHealthRoutes(app, db);
  return app;
}
