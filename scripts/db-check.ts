// npm run db:check: lists every stored document that breaks the contract's rules (collection, id, field, rule) in
// the database the service uses (MONGODB_URI, else the embedded one exactly as `npm start` opens it), and exits 1
// when it finds any, 0 when there are none, 2 when it cannot check. Read-only. Run it while `npm start` is stopped
// when using the embedded database (both would open the same data directory), or point MONGODB_URI at the server.
import "reflect-metadata";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfigOrExit } from "../src/config";
import { openConfiguredDatabase, type ConfiguredDatabase } from "../src/db/configured-database";
import { APP_SCHEMA, type AppModels } from "../src/persistence";
import { checkDatabase } from "../src/db/db-check";

async function main(): Promise<void> {
  const config = loadConfigOrExit({ statusWorkflow: parseStatusWorkflow });
  const say = (message: string) => process.stdout.write(`${message}\n`);
  const note = (message: string) => process.stderr.write(`${message}\n`);

  let database: ConfiguredDatabase<AppModels> | undefined;
  try {
    database = await openConfiguredDatabase(config, APP_SCHEMA, note);
    note(`Checking database "${database.db.connection.name}" in ${database.description}`);
    const summary = await checkDatabase(database.db, (p) => say(`${p.collection} ${p.id} ${p.field}: ${p.rule}`), note);
    note(
      summary.problems === 0
        ? `No problems in ${summary.documents} documents.`
        : `${summary.problems} problem(s) in ${summary.documents} documents; see "Records the API cannot answer" in the docs to fix them.`,
    );
    process.exitCode = summary.problems === 0 ? 0 : 1;
  } catch (err) {
    note(`db:check failed: ${(err as Error).message}`);
    process.exitCode = 2;
  } finally {
    await database?.close().catch(() => undefined);
  }
}

void main();
