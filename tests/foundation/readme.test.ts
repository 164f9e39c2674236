// The documentation stays true where a test can tell: the status workflow example in the API guide is exactly
// examples/status-workflow.json (the file tests and PROJECT_STATUS_WORKFLOW use) and the service accepts it, and so
// is the row rules example (examples/access-policy.json, the contract's, for ACCESS_POLICY); every
// relative link of the README and docs/ resolves, to a file that exists and, for a #fragment, a heading in it; and
// the README stays a front door.
import fs from "node:fs";
import path from "node:path";
import { parseAccessPolicy, parseStatusWorkflow } from "../../src/components/projects";

const REPO = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(REPO, file), "utf8");

/** The first ```json block after the heading `## <heading>` of a markdown file. */
function jsonBlockUnder(file: string, heading: string): string {
  const section = read(file)
    .split(/^## /m)
    .find((part) => part.startsWith(`${heading}\n`));
  expect(section).toBeDefined();
  const block = /```json\n([\s\S]*?)```/.exec(section!);
  expect(block).not.toBeNull();
  return block![1];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

const MARKDOWN = [
  "README.md",
  ...fs
    .readdirSync(path.join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

it("when the API guide shows the project status workflow format, then its example equals examples/status-workflow.json", () => {
  const example = read("examples/status-workflow.json");
  const shown = jsonBlockUnder("docs/api.md", "Project status workflow");

  expect(JSON.parse(shown)).toEqual(JSON.parse(example));
  expect(parseStatusWorkflow(shown).statuses).toEqual(["proposed", "in_progress", "on_hold", "completed", "cancelled"]);
});

it("when the API guide shows the row rules format, then its example equals examples/access-policy.json, which the service accepts", () => {
  const example = read("examples/access-policy.json");
  const shown = jsonBlockUnder("docs/api.md", "Row-level access");

  expect(JSON.parse(shown)).toEqual(JSON.parse(example));
  expect(() => parseAccessPolicy(example)).not.toThrow();
});

it.each(MARKDOWN)(
  "when %s links to a file of the repository, then the file (and the heading it names) exists",
  (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, "");
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [where, fragment] = target.split("#");
      const resolved = where === "" ? file : path.normalize(path.join(path.dirname(file), where));
      if (resolved.startsWith("..")) {
        broken.push(`${target} (outside the repository)`);
        continue;
      }
      if (!fs.existsSync(path.join(REPO, resolved))) {
        broken.push(`${target} (no such file)`);
        continue;
      }
      if (fragment && resolved.endsWith(".md") && !anchorsOf(resolved).has(fragment)) {
        broken.push(`${target} (no heading #${fragment} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  },
);

it("when a newcomer opens the README, then it is a front door: Quick start, configuration, documentation, at most about 250 lines", () => {
  const readme = read("README.md");
  expect(readme.split("\n").length).toBeLessThanOrEqual(260);
  for (const heading of ["## Quick start", "## Configuration", "## Documentation"]) expect(readme).toContain(heading);
  expect(readme).toContain("npm install && npm start\nnpm test\n");
});
