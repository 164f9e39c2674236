// npm run recipe:check: follows the add-a-field recipe of docs/CONTRIBUTING.md to the letter in a scratch copy of
// this checkout (a temporary git worktree of HEAD with the uncommitted changes and new files copied in), and fails
// unless every step does what the recipe says: each edit finds its line, each command succeeds, the compiler prints
// exactly the errors the recipe quotes (each naming the field; no error without a message, such as a missing
// argument), the last command (`npm test`, in full) passes on its first run, the recipe names every file the run
// changed, and its counts of files edited and regenerated are right. Takes as long as `npm test` and two type checks
// more. `--keep` leaves the scratch copy in place; it is always kept when a step fails.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../src/shared/package-root";
import { applyEdit, compilerErrors, editedFiles, parseRecipe, type RecipeStep } from "./recipe";

const say = (message: string) => process.stdout.write(`${message}\n`);

function git(args: string[], cwd = REPO_ROOT): string {
  const run = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${run.stderr}`);
  return run.stdout;
}

/** A worktree of HEAD holding this checkout's uncommitted changes and new files, with its node_modules. */
function scratchCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-recipe-"));
  // A commit of the tracked files as they are now (HEAD when nothing changed); neither the stash nor the tree move.
  const base = git(["stash", "create"]).trim() || "HEAD";
  git(["worktree", "add", "--detach", dir, base]);
  for (const file of git(["ls-files", "--others", "--exclude-standard", "-z"]).split("\0").filter(Boolean)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
  }
  // Hard links: a copy in seconds that tools treat as a real folder (a symbolic link would show in git status).
  const linked = spawnSync("cp", ["-al", path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules")]);
  if (linked.status !== 0) throw new Error(`cannot link node_modules into ${dir}: ${String(linked.stderr)}`);
  return dir;
}

/** Runs one command of the recipe in the scratch copy, its output written to the log as it comes; returns it. */
function run(dir: string, command: string, log: string): { status: number; output: string } {
  const started = Date.now();
  fs.appendFileSync(log, `$ ${command}\n`);
  const from = fs.statSync(log).size;
  const fd = fs.openSync(log, "a");
  const result = spawnSync("bash", ["-c", command], { cwd: dir, stdio: ["ignore", fd, fd] });
  fs.closeSync(fd);
  const output = fs.readFileSync(log).subarray(from).toString("utf8");
  say(`  $ ${command}: exit ${result.status} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { status: result.status ?? 1, output };
}

function follow(dir: string, step: RecipeStep, field: string, log: string): void {
  if (step.kind !== "run") {
    const file = path.join(dir, step.file);
    fs.writeFileSync(file, applyEdit(fs.readFileSync(file, "utf8"), step));
    say(`  edited ${step.file}`);
    return;
  }
  step.commands.forEach((command, i) => {
    const { status, output } = run(dir, command, log);
    const expectsErrors = step.errors !== undefined && i === step.commands.length - 1;
    if (!expectsErrors) {
      if (status !== 0) throw new Error(`\`${command}\` failed (exit ${status}):\n${output.slice(-4000)}`);
      return;
    }
    const errors = compilerErrors(output);
    const unnamed = errors.filter((error) => !`${error.line}\n${error.detail}`.includes(field));
    if (unnamed.length > 0) {
      throw new Error(`errors that do not name ${field}:\n${unnamed.map((e) => `${e.code} ${e.line}`).join("\n")}`);
    }
    const printed = errors.map((error) => error.line).sort();
    const quoted = [...step.errors!].sort();
    if (status === 0 || JSON.stringify(printed) !== JSON.stringify(quoted)) {
      throw new Error(
        `\`${command}\` printed other errors than the recipe quotes.\nprinted:\n${printed.join("\n")}\nquoted:\n${quoted.join("\n")}`,
      );
    }
  });
}

function main(): void {
  const keep = process.argv.includes("--keep");
  const recipe = parseRecipe(fs.readFileSync(path.join(REPO_ROOT, "docs", "CONTRIBUTING.md"), "utf8"));
  const dir = scratchCopy();
  const log = path.join(dir, "recipe-check.log");
  say(`Following the recipe (adding ${recipe.field}) in ${dir}; the commands write to ${log}`);
  let passed = false;
  try {
    for (const step of recipe.steps) follow(dir, step, recipe.field, log);

    const changed = git(["status", "--porcelain", "--untracked-files=all"], dir)
      .split("\n")
      .filter(Boolean)
      .map((line) => line.slice(3))
      .filter((file) => file !== "recipe-check.log");
    const edited = editedFiles(recipe);
    const regenerated = changed.filter((file) => !edited.includes(file));
    const unnamed = changed.filter((file) => !recipe.text.includes(`\`${file}\``));
    const problems = [
      ...edited.filter((file) => !changed.includes(file)).map((file) => `${file}: edited, yet unchanged`),
      ...unnamed.map((file) => `${file}: changed by the run, not named in the recipe`),
      ...(recipe.stated.edited === edited.length
        ? []
        : [`the recipe states ${recipe.stated.edited} files edited by hand; its edits change ${edited.length}`]),
      ...(recipe.stated.regenerated === regenerated.length
        ? []
        : [
            `the recipe states ${recipe.stated.regenerated} files regenerated; its commands changed ${regenerated.length}`,
          ]),
    ];
    if (problems.length > 0) throw new Error(problems.join("\n"));
    say(`The recipe holds: ${edited.length} files edited by hand, ${regenerated.length} regenerated:`);
    for (const file of regenerated) say(`  ${file}`);
    passed = true;
  } finally {
    if (passed && !keep) {
      git(["worktree", "remove", "--force", dir]);
    } else {
      say(`The scratch copy is kept: ${dir} (remove it with \`git worktree remove --force ${dir}\`)`);
    }
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`recipe:check failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
