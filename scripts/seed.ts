// npm run seed: fills the database the service uses (MONGODB_URI, else the embedded one exactly as `npm start`
// starts it: same EMBEDDED_DB choice, same DATA_DIR) with a small demo data set, through the domain services.
// Safe to run again: what exists is left alone. Run it while `npm start` is stopped when using the embedded
// database (both would open the same data directory), or point MONGODB_URI at the running server.
import "reflect-metadata";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfigOrExit } from "../src/config";
import { openConfiguredDatabase, type ConfiguredDatabase } from "../src/db/configured-database";
import { APP_SCHEMA, type AppModels } from "../src/persistence";
import { formatSummary, seedDatabase } from "../src/seed/seed";
import { createLogger } from "../src/logger";
import { createServices } from "../src/services";

async function main(): Promise<void> {
  const config = loadConfigOrExit({ statusWorkflow: parseStatusWorkflow });
  const say = (message: string) => process.stdout.write(`${message}\n`);

  let database: ConfiguredDatabase<AppModels> | undefined;
  try {
    database = await openConfiguredDatabase(config, APP_SCHEMA, say);
    const { db } = database;
    const workflow = config.statusWorkflowPath ? ` with statuses of ${config.statusWorkflowPath}` : "";
    say(`Seeding database "${db.connection.name}" in ${database.description}${workflow}`);
    const summary = await seedDatabase(
      createServices(
        db,
        config.statusWorkflow,
        createLogger({ level: config.logLevel, production: config.production }),
      ),
      { workflow: config.statusWorkflow },
    );
    for (const line of formatSummary(summary)) say(line);
    say(
      summary.teachers.created + summary.students.created + summary.projects.created === 0
        ? "Nothing to add."
        : "Done.",
    );
  } catch (err) {
    process.stderr.write(`Seeding failed: ${(err as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await database?.close().catch(() => undefined);
  }
}

void main();
