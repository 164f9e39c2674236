// Start: validate configuration, open the database (MONGODB_URI or the embedded one), listen, and shut down
// cleanly on SIGTERM/SIGINT (stop accepting, drain requests, close Mongoose, stop the embedded database).
import "reflect-metadata";
import { createApp } from "./app";
import { ConfigError, loadConfig, type Config } from "./config";
import { openDatabase, type Database } from "./db/database";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./db/embedded";
import { createLogger } from "./logger";

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, production: config.production });
  if (config.auth.mode === "header") {
    logger.warn("Auth is in header mode: X-User-Role and X-User-Id are trusted as sent (development only)");
  }

  let embedded: EmbeddedDatabase | undefined;
  let db: Database | undefined;
  try {
    if (!config.mongodbUri) {
      embedded = await startEmbeddedDatabase({
        mode: config.embeddedDb,
        dataDir: config.dataDir,
        progress: (message) => logger.info(message),
      });
    }
    db = await openDatabase(config.mongodbUri ?? embedded!.uri);
    const app = await createApp({ config, logger, db });
    const database = embedded ? embedded.description : "MongoDB at MONGODB_URI";
    // Fastify logs this once it listens: the one start-up line, with the real port when PORT=0.
    await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (address) =>
        `Ready: ${address.replace("0.0.0.0", "localhost")}/graphql | database: ${database} | auth: ${config.auth.mode} mode`,
    });

    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info(`${signal} received: draining requests and stopping`);
      try {
        await app.close();
        await db!.close();
        await embedded?.stop();
        logger.info("Stopped");
        process.exit(0);
      } catch (err) {
        logger.error({ err }, "error while stopping");
        process.exit(1);
      }
    };
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
    process.on("SIGINT", () => void shutdown("SIGINT"));
  } catch (err) {
    logger.fatal({ err }, `Start-up failed: ${(err as Error).message}`);
    await db?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  }
}

void main();
