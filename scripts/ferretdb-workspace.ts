// npm run ferretdb:workspace -- export <dir> | import <dir>: the patched FerretDB as a git repository to work in.
//
// export writes <dir>/FerretDB, FerretDB's module as the Go toolchain downloads it, committed as `pristine` (a tag),
// then one commit per patch of tools/ferretdb/patches (its subject is the patch's file name), then one commit of the
// files of tools/ferretdb/_added; and <dir>/go.mod, tools/ferretdb's with FerretDB replaced by that copy, to build and
// test against it. Edit there (commits are yours to make or not), then import writes the patches back and replaces
// tools/ferretdb/_added by the files that FerretDB's module does not have. Each change of one of FerretDB's own files
// names its concern in a comment on one of its added lines, "(<concern>.patch)": import writes each concern's
// changes into <concern>.patch, against FerretDB's pristine file, so the patches apply in any order
// (tests/foundation/ferretdb-patch-layout.test.ts applies each one alone and all in reverse order).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createTwoFilesPatch, diffLines } from "diff";
import {
  ADDED_DIR,
  PATCH_DIR,
  addAddedFiles,
  applyPatchFile,
  copyModule,
  ferretDbModuleDir,
  filesUnder,
  patchFiles,
  writeReplacingGoMod,
} from "../src/db/ferretdb";

const ADDED_COMMIT = "_added";
const PRISTINE = "pristine";

function git(repo: string, args: string[]): string {
  return execFileSync("git", ["-C", repo, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? "ferretdb-workspace",
      GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? "ferretdb-workspace@localhost",
      GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? "ferretdb-workspace",
      GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? "ferretdb-workspace@localhost",
    },
  });
}

function commitAll(repo: string, subject: string): void {
  // -f: FerretDB's .gitignore names files its module holds (build/version/*.txt).
  git(repo, ["add", "-A", "-f"]);
  git(repo, ["commit", "-q", "--allow-empty", "-m", subject]);
}

async function exportWorkspace(dir: string): Promise<void> {
  if (fs.existsSync(dir)) throw new Error(`${dir} exists already: give a folder that does not exist yet`);
  const copy = path.join(dir, "FerretDB");
  copyModule(await ferretDbModuleDir(() => undefined), copy);
  git(copy, ["init", "-q"]);
  commitAll(copy, "FerretDB, as the Go toolchain downloads it");
  git(copy, ["tag", PRISTINE]);
  for (const patchFile of patchFiles()) {
    applyPatchFile(copy, patchFile);
    commitAll(copy, patchFile);
  }
  addAddedFiles(copy);
  commitAll(copy, ADDED_COMMIT);
  const goMod = writeReplacingGoMod(dir, copy);
  const tools = path.relative(process.cwd(), path.dirname(PATCH_DIR)) || ".";
  process.stdout.write(
    [
      `Wrote ${copy} (tag ${PRISTINE}, one commit per patch, then ${ADDED_COMMIT}) and ${goMod}.`,
      `Build:  (cd ${tools} && go build -modfile=${goMod} -o ${path.join(dir, "ferretdb-embedded")} .)`,
      `Test:   (cd ${tools} && go test -modfile=${goMod} github.com/FerretDB/FerretDB/internal/handler/...)`,
      `Back:   npm run ferretdb:workspace -- import ${dir}`,
      "",
    ].join("\n"),
  );
}

/** Names the concern of a change: "(<concern>.patch" in one of its added lines. */
const CONCERN_TAG = /\(([a-z][a-z0-9-]*)\.patch\b/g;

/**
 * Splits the changes of one of FerretDB's files (pristine text → work text) by concern: each change (a run of
 * changed lines) goes to the concern its added lines name. Returns each concern's version of the file: pristine with
 * only that concern's changes, so that each patch is written against FerretDB's own file and the patches apply in
 * any order. Throws for a change that names no concern or several.
 */
function splitByConcern(file: string, pristine: string, work: string): Map<string, string> {
  const parts = diffLines(pristine, work);
  const changes: { at: number; removed: string[]; added: string }[] = [];
  let line = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!part.added && !part.removed) {
      line += part.count ?? 0;
      continue;
    }
    const removed = part.removed ? part.value : "";
    const added = part.removed && parts[i + 1]?.added ? parts[++i].value : part.added ? part.value : "";
    changes.push({ at: line, removed: removed.split("\n").slice(0, -1), added });
    line += removed === "" ? 0 : removed.split("\n").length - 1;
  }
  const byConcern = new Map<string, typeof changes>();
  const removals = changes.filter((change) => change.added === "");
  for (const change of changes) {
    // A change that only removes lines has no comment to name its concern: it goes with the file's only concern.
    if (change.added === "") continue;
    const concerns = new Set([...change.added.matchAll(CONCERN_TAG)].map((m) => m[1]));
    if (concerns.size !== 1) {
      throw new Error(
        `${file}, line ${change.at + 1} of FerretDB's file: a change must name exactly one concern in a comment, ` +
          `"(<concern>.patch)"; this one names ${concerns.size === 0 ? "none" : [...concerns].join(", ")}`,
      );
    }
    const concern = [...concerns][0];
    byConcern.set(concern, [...(byConcern.get(concern) ?? []), change]);
  }
  if (removals.length > 0) {
    if (byConcern.size !== 1) {
      throw new Error(
        `${file}, line ${removals[0].at + 1} of FerretDB's file: a change that only removes lines goes with the ` +
          `file's only concern, and this file has ${byConcern.size}: keep the line, or change it with a comment`,
      );
    }
    const [concern, own] = [...byConcern][0];
    byConcern.set(
      concern,
      [...own, ...removals].sort((a, b) => a.at - b.at),
    );
  }
  const lines = pristine.split("\n");
  const result = new Map<string, string>();
  for (const [concern, own] of byConcern) {
    const out: string[] = [];
    let at = 0;
    for (const change of own) {
      out.push(...lines.slice(at, change.at));
      if (change.added !== "") out.push(...change.added.split("\n").slice(0, -1));
      at = change.at + change.removed.length;
    }
    out.push(...lines.slice(at));
    result.set(concern, out.join("\n"));
  }
  return result;
}

function importWorkspace(dir: string): void {
  const copy = path.join(dir, "FerretDB");
  const pristine = new Set(git(copy, ["ls-tree", "-r", "--name-only", PRISTINE]).split("\n").filter(Boolean));
  const patches = new Map<string, string>();
  const changed = git(copy, ["diff", "--name-only", PRISTINE])
    .split("\n")
    .filter((file) => pristine.has(file));
  for (const file of changed.sort()) {
    const before = git(copy, ["show", `${PRISTINE}:${file}`]);
    const after = fs.readFileSync(path.join(copy, file), "utf8");
    for (const [concern, text] of splitByConcern(file, before, after)) {
      const patch = createTwoFilesPatch(`a/${file}`, `b/${file}`, before, text, undefined, undefined, { context: 3 });
      // createTwoFilesPatch starts with a "====" line: the patches hold only the file headers and hunks.
      patches.set(concern, (patches.get(concern) ?? "") + patch.replace(/^=+\n/, ""));
    }
  }
  for (const file of fs.readdirSync(PATCH_DIR)) {
    if (file.endsWith(".patch")) fs.rmSync(path.join(PATCH_DIR, file));
  }
  for (const [concern, text] of patches) fs.writeFileSync(path.join(PATCH_DIR, `${concern}.patch`), text);
  // The added files: every file of the work tree that FerretDB's module does not have (tracked or not).
  fs.rmSync(ADDED_DIR, { recursive: true, force: true });
  let added = 0;
  for (const file of filesUnder(copy)) {
    if (file.startsWith(".git/") || pristine.has(file)) continue;
    fs.mkdirSync(path.dirname(path.join(ADDED_DIR, file)), { recursive: true });
    fs.copyFileSync(path.join(copy, file), path.join(ADDED_DIR, file));
    added++;
  }
  process.stdout.write(
    `Wrote ${[...patches.keys()].sort().join(", ")} (patches) to ${PATCH_DIR} and ${added} files to ${ADDED_DIR}.\n`,
  );
}

async function main(): Promise<void> {
  const [command, dir] = process.argv.slice(2);
  if ((command !== "export" && command !== "import") || !dir) {
    process.stderr.write("usage: npm run ferretdb:workspace -- export <dir> | import <dir>\n");
    process.exitCode = 2;
    return;
  }
  try {
    if (command === "export") await exportWorkspace(path.resolve(dir));
    else importWorkspace(path.resolve(dir));
  } catch (err) {
    process.stderr.write(`ferretdb:workspace ${command}: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

void main();
