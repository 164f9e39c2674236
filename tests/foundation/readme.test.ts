// When a reader copies the README's status workflow example, then it is exactly examples/status-workflow.json (the
// file tests and PROJECT_STATUS_WORKFLOW use), and the service accepts it.
import fs from "node:fs";
import path from "node:path";
import { parseStatusWorkflow } from "../../src/components/projects";

const REPO = path.resolve(__dirname, "../..");

/** The first ```json block after the heading `## <heading>` of README.md. */
function jsonBlockUnder(heading: string): string {
  const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  expect(section).toBeDefined();
  const block = /```json\n([\s\S]*?)```/.exec(section!);
  expect(block).not.toBeNull();
  return block![1];
}

it("when the README shows the project status workflow format, then its example equals examples/status-workflow.json", () => {
  const example = fs.readFileSync(path.join(REPO, "examples", "status-workflow.json"), "utf8");
  const shown = jsonBlockUnder("Project status workflow");

  expect(JSON.parse(shown)).toEqual(JSON.parse(example));
  expect(parseStatusWorkflow(shown).statuses).toEqual(["proposed", "in_progress", "on_hold", "completed", "cancelled"]);
});
