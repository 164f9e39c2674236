// The FerretDB patch keeps its concerns apart (docs/database.md, tools/ferretdb/main.go's header):
// - each patch of tools/ferretdb/patches applies alone to FerretDB's pristine module, and all of them in reverse order
//   give exactly what the build's order gives: they apply in any order;
// - every change a patch makes names that patch's concern, "(<concern>.patch)";
// - each concern's switch is read once, in util/embedded/switches.go, and main.go's header lists every switch;
// - each added file is named after its concern, or after what it shares; each buildInfo marker is set by its concern;
// - the files and patches docs/database.md names exist.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parsePatch } from "diff";
import {
  ADDED_DIR,
  PATCH_DIR,
  applyPatchFile,
  copyModule,
  ferretDbModuleDir,
  filesUnder,
  patchFiles,
} from "../../src/db/ferretdb";
import { REPO_ROOT } from "../../src/shared/package-root";

const TOOLS = path.dirname(PATCH_DIR);
/** Concerns made of added files only (no change of FerretDB's files): the fail points. */
const HOOK_ONLY_CONCERNS = ["failpoint"];
/** Files named for what several concerns share. */
const SHARED = [
  "embedded_commands.go",
  "embedded_markers.go",
  "embedded_locks.go",
  "embedded_stmts.go",
  "embedded_readtx.go",
  "embedded_walk.go",
  "embedded_upserted_index.go",
  "switches.go",
];
/** A shared file, or one of its parts (embedded_walk_json.go is part of embedded_walk.go). */
const isShared = (name: string) => SHARED.some((s) => name === s || name.startsWith(s.replace(/\.go$/, "_")));
const concerns = () => patchFiles().map((file) => file.replace(/\.patch$/, ""));

describe("the FerretDB patch's concerns", () => {
  let pristine: string;
  const work: string[] = [];
  beforeAll(async () => {
    pristine = await ferretDbModuleDir(() => undefined);
  }, 120_000);
  afterAll(() => work.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  function copy(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferretdb-layout-"));
    work.push(dir);
    copyModule(pristine, dir);
    return dir;
  }

  it("when each patch is applied alone to FerretDB's pristine module, or all in reverse order, then each applies and the result is the build's", () => {
    const built = copy();
    for (const patch of patchFiles()) applyPatchFile(built, patch);
    const reversed = copy();
    for (const patch of [...patchFiles()].reverse()) applyPatchFile(reversed, patch);
    for (const patch of patchFiles()) expect(() => applyPatchFile(copy(), patch)).not.toThrow();

    const changed = patchFiles().flatMap((patch) =>
      parsePatch(fs.readFileSync(path.join(PATCH_DIR, patch), "utf8")).map((p) => p.oldFileName!.replace(/^a\//, "")),
    );
    expect(changed.length).toBeGreaterThan(0);
    for (const file of new Set(changed)) {
      expect(fs.readFileSync(path.join(reversed, file), "utf8")).toBe(fs.readFileSync(path.join(built, file), "utf8"));
    }
  }, 120_000);

  it("when a patch changes FerretDB's files, then each of its changes names its concern", () => {
    for (const patch of patchFiles()) {
      const concern = patch.replace(/\.patch$/, "");
      for (const file of parsePatch(fs.readFileSync(path.join(PATCH_DIR, patch), "utf8"))) {
        for (const hunk of file.hunks) {
          const added = hunk.lines.filter((line) => line.startsWith("+")).join("\n");
          if (added === "") continue; // a removal only: it goes with the file's only concern
          const named = new Set([...added.matchAll(/\(([a-z][a-z0-9-]*)\.patch/g)].map((m) => m[1]));
          expect({ patch, file: file.oldFileName, named: [...named] }).toEqual({
            patch,
            file: file.oldFileName,
            named: [concern],
          });
        }
      }
    }
  });

  it("when the program reads a concern's switch, then it reads it in switches.go only, and main.go's header lists every switch", () => {
    const goFiles = [...filesUnder(ADDED_DIR).map((f) => path.join(ADDED_DIR, f)), path.join(TOOLS, "main.go")].filter(
      (f) => f.endsWith(".go"),
    );
    const readers = new Map<string, string[]>();
    for (const file of goFiles) {
      for (const match of fs.readFileSync(file, "utf8").matchAll(/os\.Getenv\("(FERRETDB_EMBEDDED_[A-Z_]+)"\)/g)) {
        readers.set(match[1], [...(readers.get(match[1]) ?? []), path.relative(TOOLS, file)]);
      }
    }
    const header = fs.readFileSync(path.join(TOOLS, "main.go"), "utf8").split("\npackage main")[0];
    for (const [name, files] of readers) {
      // The program's own settings, not a concern's switch: main.go reads them.
      const own = [
        "FERRETDB_EMBEDDED_PPROF",
        "FERRETDB_EMBEDDED_SQL_LOG",
        "FERRETDB_EMBEDDED_SOCKET",
        "FERRETDB_EMBEDDED_SOCKET_FOLDER",
      ].includes(name)
        ? ["main.go"]
        : ["_added/internal/util/embedded/switches.go"];
      expect({ name, files: [...new Set(files)] }).toEqual({ name, files: own });
      expect({ name, listed: header.includes(name) }).toEqual({ name, listed: true });
    }
    expect(readers.size).toBeGreaterThanOrEqual(concerns().length);
  });

  it("when a file is added to FerretDB, then it is named after its concern or after what it shares, and sets no other concern's buildInfo marker", () => {
    const known = [...concerns(), ...HOOK_ONLY_CONCERNS];
    for (const file of filesUnder(ADDED_DIR).filter((f) => f.endsWith(".go"))) {
      const name = path.basename(file);
      const concern = known.find((c) => name.startsWith(`embedded_${c}`) || name.startsWith(`${c}_`));
      expect({ file, named: Boolean(concern) || isShared(name) }).toEqual({ file, named: true });
      for (const marker of fs.readFileSync(path.join(ADDED_DIR, file), "utf8").matchAll(/doc\.Set\("(embedded\w+)"/g)) {
        expect({ file, marker: marker[1], inItsConcern: Boolean(concern) }).toEqual({
          file,
          marker: marker[1],
          inItsConcern: true,
        });
      }
    }
  });

  it("when docs/database.md names a file of the patch, then it exists", () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "database.md"), "utf8");
    const named = [...doc.matchAll(/`((?:_added|patches)\/[^`*]+\.(?:go|patch))`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const file of named) {
      expect({ file, exists: fs.existsSync(path.join(TOOLS, file)) }).toEqual({ file, exists: true });
    }
  });
});
