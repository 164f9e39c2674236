// Stops the embedded database of the run and removes its files.
import fs from "node:fs";
import type { EmbeddedDatabase } from "../../src/db/embedded";

export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<string, unknown>).__testDatabase as
    { db: EmbeddedDatabase; dataDir: string } | undefined;
  if (!state) return;
  await state.db.stop();
  fs.rmSync(state.dataDir, { recursive: true, force: true });
}
