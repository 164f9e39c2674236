// The add-a-field recipe of docs/CONTRIBUTING.md stays true to this tree without running it (npm run recipe:check
// runs it): each of its edits finds its line in the file it names (or has been made, so the suite passes for one who
// has just followed the recipe), the count of files it edits is the one it states, and each compiler message it
// quotes is a message the code's field checks hold.
import fs from "node:fs";
import path from "node:path";
import { applyEdit, editedFiles, isApplied, parseRecipe, type Recipe } from "../../scripts/recipe";

const ROOT = path.join(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

describe("the add-a-field recipe (docs/CONTRIBUTING.md)", () => {
  let recipe: Recipe;
  beforeAll(() => {
    recipe = parseRecipe(read("docs/CONTRIBUTING.md"));
  });

  it("when it is read, then it has edits, commands, compiler errors it quotes and a full npm test at the end", () => {
    expect(recipe.field).toBe("repository_url");
    expect(recipe.steps.filter((step) => step.kind !== "run").length).toBeGreaterThan(0);
    expect(recipe.steps.some((step) => step.kind === "run" && step.errors !== undefined)).toBe(true);
    expect(recipe.steps[recipe.steps.length - 1]).toEqual({ kind: "run", commands: ["npm test"] });
  });

  it("when its edits are applied in order to this tree, then each finds its line (or was made: the recipe followed), and it edits as many files as it says", () => {
    const files = new Map<string, string>();
    for (const step of recipe.steps) {
      if (step.kind === "run") continue;
      const content = files.get(step.file) ?? read(step.file);
      files.set(step.file, isApplied(content, step) ? content : applyEdit(content, step));
    }

    expect([...files.keys()]).toEqual(editedFiles(recipe));
    expect(editedFiles(recipe).length).toBe(recipe.stated.edited);
  });

  it("when it quotes a field check's message, then that file holds the message (the field's name aside)", () => {
    const quoted = recipe.steps.flatMap((step) => (step.kind === "run" ? (step.errors ?? []) : []));
    const checks = quoted.flatMap((line) => {
      const message = /^(\S+\.ts): Type 'true' does not satisfy the expected type '"(\w+): (.*)"'\.$/.exec(line);
      return message ? [{ file: message[1], field: message[2], text: message[3] }] : [];
    });
    const sources = (dir: string): string[] =>
      fs
        .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
        .flatMap((entry) => (entry.isDirectory() ? sources(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
    const src = sources("src");

    expect(checks.length).toBeGreaterThan(0);
    for (const check of checks) {
      const [file, ...others] = src.filter((name) => path.basename(name) === check.file);
      expect({ file: check.file, others }).toEqual({ file: check.file, others: [] });
      expect({ field: check.field, held: read(file).includes(`"${check.text}"`) }).toEqual({
        field: recipe.field,
        held: true,
      });
    }
  });
});
