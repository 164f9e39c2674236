// The package's root folder (schema/, tools/, .data/): the nearest folder above this module whose package.json is
// project-service's, whether this runs from src/ (jest) or dist/src/ (npm start).
import fs from "node:fs";
import path from "node:path";

export const REPO_ROOT = findPackageRoot(__dirname);

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const { name } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string };
      if (name === "project-service") return dir;
    } catch {
      // no package.json here (or not JSON): look further up
    }
    if (path.dirname(dir) === dir) throw new Error(`project-service's package.json not found above ${start}`);
  }
}
