// npm run db:backup -- <dir>: a backup of the database in use (MONGODB_URI, else the embedded one), taken while the
// service keeps running, in mongodump's layout with a manifest (docs/database.md, "Backups and restore"). Exits 0
// when written, 1 when refused (with the reason), 2 when it could not run.
import "reflect-metadata";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfigOrExit } from "../src/config";
import { backupConfiguredDatabase, runToExit } from "../src/backup/commands";

async function main(): Promise<void> {
  const note = (message: string) => process.stderr.write(`${message}\n`);
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0].startsWith("-")) {
    note("usage: npm run db:backup -- <dir>   (<dir> must not exist yet)");
    process.exitCode = 1;
    return;
  }
  const config = loadConfigOrExit({ statusWorkflow: parseStatusWorkflow });
  await runToExit("db:backup", note, () => backupConfiguredDatabase(config, args[0], note));
}

void main();
