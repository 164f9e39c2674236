// npm run db:restore -- <dir> [--replace]: restores a backup written by db:backup (or mongodump's layout with its
// manifest) into the database in use (MONGODB_URI, else the embedded one: stop the service first). Every file is
// checked against the manifest before anything is written; a database that holds data is refused unless --replace.
// Exits 0 when restored, 1 when refused (with the reason), 2 when it could not run.
import "reflect-metadata";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfigOrExit } from "../src/config";
import { restoreConfiguredDatabase, runToExit } from "../src/backup/commands";

async function main(): Promise<void> {
  const note = (message: string) => process.stderr.write(`${message}\n`);
  const args = process.argv.slice(2);
  const replace = args.includes("--replace");
  const dirs = args.filter((arg) => arg !== "--replace");
  if (dirs.length !== 1 || dirs[0].startsWith("-")) {
    note("usage: npm run db:restore -- <dir> [--replace]");
    process.exitCode = 1;
    return;
  }
  const config = loadConfigOrExit({ statusWorkflow: parseStatusWorkflow });
  await runToExit("db:restore", note, async () => {
    const manifest = await restoreConfiguredDatabase(config, dirs[0], { replace, progress: note });
    const documents = Object.values(manifest.collections).reduce((sum, c) => sum + c.count, 0);
    note(`Restored ${documents} documents in ${Object.keys(manifest.collections).length} collections.`);
  });
}

void main();
