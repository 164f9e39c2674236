// The service's start (src/index.ts runs it, from its bundle or from dist/): validate configuration, open the
// database (MONGODB_URI or the embedded one), listen, and shut down cleanly on SIGTERM/SIGINT (stop accepting, drain
// requests, close Mongoose, stop the embedded database), within SHUTDOWN_TIMEOUT_MS: a request or a database that
// holds the shutdown longer makes the process exit 1. The embedded database is supervised (db/embedded-supervisor.ts):
// started again when it dies, and a crash loop shuts the service down the same way, with exit code 1.
// First: tracing patches http, fastify, graphql and mongodb as they load (a no-op without OTEL_EXPORTER_OTLP_ENDPOINT).
import { tracerProvider } from "./tracing";
import path from "node:path";
import "reflect-metadata";
import { createApp } from "./app";
import { parseAccessPolicy, parseStatusWorkflow } from "./components/projects";
import { parseWebhooksFile } from "./components/webhooks";
import { loadConfigOrExit } from "./config";
import { openConfiguredDatabase, type ConfiguredDatabase } from "./db/configured-database";
import { APP_SCHEMA, type AppModels } from "./persistence";
import { createLogger } from "./logger";
import { REPO_ROOT } from "./shared/package-root";
import { STARTED_FROM, type StartedFrom } from "./start-bundle";

/** The upper bound of a shutdown; past it the process logs what it was doing and exits 1. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfigOrExit({
    statusWorkflow: parseStatusWorkflow,
    accessPolicy: parseAccessPolicy,
    webhooks: parseWebhooksFile,
  });
  const logger = createLogger({ level: config.logLevel, production: config.production });
  if (config.auth.mode === "header") {
    logger.warn(
      `Auth is in header mode: X-User-Role and X-User-Id${config.accessPolicy ? ", and X-User-Claims," : ""} are trusted as sent (development only)`,
    );
  }
  if (config.accessPolicyPath) logger.info(`Row rules for projects from ACCESS_POLICY (${config.accessPolicyPath})`);
  if (config.webhooks) {
    logger.info(
      `Webhooks: ${config.webhooks.endpoints.length} endpoint(s) from WEBHOOKS (${config.webhooksPath})${config.webhooksAllowPrivate ? "; private addresses and http allowed (WEBHOOKS_ALLOW_PRIVATE)" : ""}`,
    );
  }

  let database: ConfiguredDatabase<AppModels> | undefined;
  try {
    database = await openConfiguredDatabase(config, APP_SCHEMA, (message) => logger.info(message), {
      supervise: true,
      warn: (message) => logger.warn(message),
    });
    const { supervisor } = database;
    if (database.embeddedUri) logger.debug(`Embedded database at ${database.embeddedUri}`);
    const from = (globalThis as Record<symbol, StartedFrom | undefined>)[STARTED_FROM];
    logger.debug(
      from?.bundle
        ? `Started from ${path.relative(REPO_ROOT, from.bundle)} (V8 code cache ${from.codeCache}; Node's compile cache ${from.compileCache})`
        : `Started from dist/, module by module${from ? ` (Node's compile cache ${from.compileCache})` : ""}`,
    );
    const app = await createApp({ config, logger, db: database.db, supervisor });
    const { description } = database;
    // Before listening: once the Ready line is out, a SIGTERM must find its handler (without one, Node dies at once).
    let stopping = false;
    const shutdown = async (announce: () => void, exitCode: 0 | 1) => {
      if (stopping) return;
      stopping = true;
      announce();
      let step = "draining requests";
      // unref: the timer itself must not keep a finished process alive.
      setTimeout(() => {
        logger.error(
          `Shutdown did not finish within ${SHUTDOWN_TIMEOUT_MS / 1000} s (still ${step}); exiting with code 1`,
        );
        process.exit(1);
      }, SHUTDOWN_TIMEOUT_MS).unref();
      try {
        await app.close();
        step = "closing the database";
        await database!.close();
        await tracerProvider?.shutdown(); // exports the spans still batched
        logger.info("Stopped");
        process.exit(exitCode);
      } catch (err) {
        logger.error({ err }, "error while stopping");
        process.exit(1);
      }
    };
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.on(
        signal,
        () => void shutdown(() => logger.info(`${signal} received: draining requests and stopping`), 0),
      );
    }
    supervisor?.on("down", (line) => logger.error(line));
    supervisor?.on("back", (line) => logger.info(line));
    supervisor?.on("gaveUp", (line) => void shutdown(() => logger.fatal(line), 1));
    // Fastify logs this once it listens: the Ready line that ends the start-up, with the real port when PORT=0.
    await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (address) =>
        `Ready: ${address.replace("0.0.0.0", "localhost")}/graphql | database: ${description} | auth: ${config.auth.mode} mode`,
    });
    from?.ready();
  } catch (err) {
    logger.fatal({ err }, `Start-up failed: ${(err as Error).message}`);
    await database?.close().catch(() => undefined);
    process.exit(1);
  }
}

void main();
