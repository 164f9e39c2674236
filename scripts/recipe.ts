// The add-a-field recipe of docs/CONTRIBUTING.md read as steps a program can follow: its edits ("In `file`, after the
// line `…`, add:" or "replace the line `…` with:", each followed by a code block), its commands (```sh blocks) and
// the compiler errors it says a command prints (a ```text block right after them). `npm run recipe:check`
// (scripts/recipe-check.ts) follows the steps in a scratch copy; tests/foundation/recipe.test.ts checks that each
// edit applies to this tree (or has been made: the recipe followed) and that the counts the recipe states match.
import path from "node:path";

export type RecipeStep =
  | { kind: "insert"; file: string; anchor: string; every: boolean; text: string[] }
  | { kind: "replace"; file: string; line: string; text: string[] }
  /** `errors`: the error lines the last command prints (`file.ts: message`); none given: every command succeeds. */
  | { kind: "run"; commands: string[]; errors?: string[] };

export interface Recipe {
  /** The field the recipe adds (the first inline code of its heading). */
  field: string;
  steps: RecipeStep[];
  /** The recipe's text, for checking that it names every file a run changes. */
  text: string;
  /** The counts it states: "**N files edited by hand**", "**N files regenerated**". */
  stated: { edited: number; regenerated: number };
}

/** The heading that starts the recipe; it ends at the next heading of the same or a higher level. */
export const RECIPE_HEADING = "### The recipe:";

/** Inline code: `text`, or `` text `` when the text holds backticks. */
const CODE = /(?:`` (.+?) ``|`([^`]+)`)/.source;
const INSERT = new RegExp(`In ${CODE}, after (the|each) line ${CODE}, add:$`);
const REPLACE = new RegExp(`In ${CODE}, replace the line ${CODE} with:$`);
const FENCE = /^(\s*)```(\w*)\s*$/;

/** The recipe in a Markdown document (docs/CONTRIBUTING.md). */
export function parseRecipe(markdown: string): Recipe {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(RECIPE_HEADING));
  if (start < 0) throw new Error(`no "${RECIPE_HEADING}" heading`);
  const length = lines.slice(start + 1).findIndex((line) => /^#{1,3} /.test(line));
  const section = lines.slice(start, length < 0 ? undefined : start + 1 + length);
  const field = /`([^`]+)`/.exec(section[0])?.[1];
  if (!field) throw new Error(`the recipe's heading names no field in backticks: ${section[0]}`);

  const steps: RecipeStep[] = [];
  let pending: { kind: "insert"; file: string; anchor: string; every: boolean } | undefined;
  let pendingReplace: { file: string; line: string } | undefined;
  let paragraph: string[] = [];
  /** The last step, when it is a run that no edit or prose instruction has followed yet. */
  let lastRun: Extract<RecipeStep, { kind: "run" }> | undefined;

  const endParagraph = () => {
    const text = paragraph.join(" ");
    paragraph = [];
    const insert = INSERT.exec(text);
    const replace = REPLACE.exec(text);
    if (insert) {
      pending = {
        kind: "insert",
        file: insert[1] ?? insert[2],
        every: insert[3] === "each",
        anchor: insert[4] ?? insert[5],
      };
    }
    if (replace) pendingReplace = { file: replace[1] ?? replace[2], line: replace[3] ?? replace[4] };
  };

  for (let i = 1; i < section.length; i++) {
    const fence = FENCE.exec(section[i]);
    if (!fence) {
      if (section[i].trim() === "") endParagraph();
      else paragraph.push(section[i].trim().replace(/^(\d+\.|-)\s+/, ""));
      continue;
    }
    endParagraph();
    const [, indent, lang] = fence;
    const block: string[] = [];
    for (i++; i < section.length && !/^\s*```\s*$/.test(section[i]); i++) {
      block.push(section[i].startsWith(indent) ? section[i].slice(indent.length) : section[i].trimStart());
    }
    if (pending) {
      steps.push({ ...pending, text: block });
      pending = undefined;
      lastRun = undefined;
    } else if (pendingReplace) {
      steps.push({ kind: "replace", ...pendingReplace, text: block });
      pendingReplace = undefined;
      lastRun = undefined;
    } else if (lang === "sh") {
      lastRun = { kind: "run", commands: block.filter((line) => line.trim() !== "") };
      steps.push(lastRun);
    } else if (lang === "text" && lastRun && !lastRun.errors) {
      lastRun.errors = block.filter((line) => line.trim() !== "");
    } else {
      throw new Error(
        `a code block of the recipe is not an edit, a command or a command's errors:\n${block.join("\n")}`,
      );
    }
  }
  endParagraph();
  if (pending || pendingReplace) throw new Error("the recipe's last edit has no code block");

  const text = section.join("\n");
  const count = (what: string) => {
    const match = new RegExp(`\\*\\*(\\d+) files? ${what}`).exec(text);
    if (!match) throw new Error(`the recipe states no "**N files ${what}**" count`);
    return Number(match[1]);
  };
  return { field, steps, text, stated: { edited: count("edited by hand"), regenerated: count("regenerated") } };
}

/** The files the recipe's edits change, in the order it first edits them. */
export function editedFiles(recipe: Recipe): string[] {
  return [...new Set(recipe.steps.flatMap((step) => (step.kind === "run" ? [] : [step.file])))];
}

const indentOf = (line: string) => /^\s*/.exec(line)![0];

/** `block` moved to `indent`: its least indented line starts there, blank lines stay blank. */
function reindent(block: string[], indent: string): string[] {
  const own = block.filter((line) => line.trim() !== "").map(indentOf);
  const least = own.reduce((a, b) => (b.length < a.length ? b : a), own[0] ?? "");
  return block.map((line) => (line.trim() === "" ? "" : indent + line.slice(least.length)));
}

/**
 * Whether `content` already holds the edit (the recipe was followed): each line it goes after is followed by its text,
 * or the line it replaces is gone and its text is there.
 */
export function isApplied(content: string, step: Exclude<RecipeStep, { kind: "run" }>): boolean {
  const lines = content.split("\n");
  if (step.kind === "replace") {
    const text = step.text.map((line) => line.trim()).join("\n");
    return (
      !lines.some((line) => line.trim() === step.line) &&
      lines
        .map((line) => line.trim())
        .join("\n")
        .includes(text)
    );
  }
  const at = lines.flatMap((line, i) => (line.trim() === step.anchor ? [i] : []));
  return (
    at.length > 0 &&
    (step.every || at.length === 1) &&
    at.every((i) => {
      const text = reindent(step.text, indentOf(lines[i]));
      return text.every((line, k) => lines[i + 1 + k] === line);
    })
  );
}

/** `content` (a file's text) after one edit step; throws when its line is not where the recipe says. */
export function applyEdit(content: string, step: Exclude<RecipeStep, { kind: "run" }>): string {
  const lines = content.split("\n");
  const wanted = step.kind === "insert" ? step.anchor : step.line;
  const at = lines.flatMap((line, i) => (line.trim() === wanted ? [i] : []));
  const every = step.kind === "insert" && step.every;
  if (at.length === 0 || (!every && at.length > 1)) {
    throw new Error(
      `${step.file}: the line \`${wanted}\` is there ${at.length} times; the recipe needs it ${every ? "at least once" : "once"}`,
    );
  }
  for (const i of [...at].reverse()) {
    const text = reindent(step.text, indentOf(lines[i]));
    if (step.kind === "insert") lines.splice(i + 1, 0, ...text);
    else lines.splice(i, 1, ...text);
  }
  return lines.join("\n");
}

/**
 * The errors tsc printed, each as the recipe writes them: `file.ts: message`, the file by its name, without the
 * position (lines move as the code changes); `detail` holds the message's continuation lines.
 */
export function compilerErrors(output: string): { line: string; code: string; detail: string }[] {
  const errors: { line: string; code: string; detail: string }[] = [];
  for (const line of output.split("\n")) {
    const error = /^(\S+)\(\d+,\d+\): error (TS\d+): (.*)$/.exec(line);
    if (error) errors.push({ line: `${path.basename(error[1])}: ${error[3]}`, code: error[2], detail: "" });
    else if (errors.length > 0 && /^\s+\S/.test(line)) errors[errors.length - 1].detail += `${line.trim()}\n`;
  }
  return errors;
}
