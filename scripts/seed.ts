// npm run seed: fills the database the service uses (MONGODB_URI, else the embedded one exactly as `npm start`
// starts it: same EMBEDDED_DB choice, same DATA_DIR) with a small demo data set, through the domain services.
// Safe to run again: what exists is left alone. Run it while `npm start` is stopped when using the embedded
// database (both would open the same data directory), or point MONGODB_URI at the running server.
import "reflect-metadata";
import { ConfigError, loadConfig, type Config } from "../src/config";
import { openDatabase, type Database } from "../src/db/database";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../src/db/embedded";
import { formatSummary, seedDatabase } from "../src/seed/seed";
import { createServices } from "../src/services";

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
  const say = (message: string) => process.stdout.write(`${message}\n`);

  let embedded: EmbeddedDatabase | undefined;
  let db: Database | undefined;
  try {
    if (!config.mongodbUri) {
      embedded = await startEmbeddedDatabase({ mode: config.embeddedDb, dataDir: config.dataDir, progress: say });
    }
    db = await openDatabase(config.mongodbUri ?? embedded!.uri);
    const where = embedded ? embedded.description : "MongoDB at MONGODB_URI";
    const workflow = config.statusWorkflowPath ? ` with statuses of ${config.statusWorkflowPath}` : "";
    say(`Seeding database "${db.connection.name}" in ${where}${workflow}`);
    const summary = await seedDatabase(createServices(db, config.statusWorkflow), { workflow: config.statusWorkflow });
    for (const line of formatSummary(summary)) say(line);
    say(summary.teachers.created + summary.students.created + summary.projects.created === 0 ? "Nothing to add." : "Done.");
  } catch (err) {
    process.stderr.write(`Seeding failed: ${(err as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await db?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
  }
}

void main();
