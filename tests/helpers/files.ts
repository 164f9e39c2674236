// What a folder's files hold, byte for byte: for the tests that check what is (not) left on disk.
import fs from "node:fs";
import path from "node:path";

/** Every file under dir whose bytes contain text (UTF-8). */
export function filesHolding(dir: string, text: string): string[] {
  const needle = Buffer.from(text, "utf8");
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => fs.readFileSync(file).includes(needle));
}
