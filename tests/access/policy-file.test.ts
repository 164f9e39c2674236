// ACCESS_POLICY is read at start: every kind of bad file (no JSON, unknown role, operation or field, a value of the
// wrong type, a file that cannot be read) stops the start with one line naming the variable, the file and the place
// in it; a good one loads. Unset, nothing is read.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAccessPolicy, parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig } from "../../src/config";
import { ConfigError } from "../../src/shared/environment";
import { CONTRACT_POLICY } from "./support";

const REPO = path.resolve(__dirname, "../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "access-policy-"));
let files = 0;

/** A policy file holding `text` (JSON of `content` unless it is a string). */
function policyFile(content: unknown): string {
  const file = path.join(dir, `policy-${++files}.json`);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

const load = (env: NodeJS.ProcessEnv) =>
  loadConfig(env, { statusWorkflow: parseStatusWorkflow, accessPolicy: parseAccessPolicy });

function startError(content: unknown): { file: string; message: string } {
  const file = policyFile(content);
  try {
    load({ ACCESS_POLICY: file });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return { file, message: (err as Error).message };
  }
  throw new Error("the policy was accepted");
}

const student = (rule: unknown) => ({ projects: { student: { read: rule } } });

describe("the ACCESS_POLICY file", () => {
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each<[string, unknown, string]>([
    ["text that is not JSON", '{ "projects": ', "not valid JSON ("],
    ["JSON that is not an object", "[1, 2]", 'expected an object with "projects" (row rules per role), got [1,2]'],
    ["an unknown key at the top", { projects: {}, roles: {} }, 'unknown key "roles" at the top'],
    ["no projects", { $comment: "empty" }, '"projects" is missing'],
    ["projects that is not an object", { projects: [] }, "projects: expected an object mapping roles to rules"],
    [
      "an unknown role",
      { projects: { guest: { read: {} } } },
      "projects.guest: unknown role; roles are student, teacher, admin",
    ],
    ["a role spelled otherwise", { projects: { Student: { read: {} } } }, "projects.Student: unknown role"],
    [
      "a role entry that is not an object",
      { projects: { admin: true } },
      'projects.admin: expected an object with "read" and "change" rules, got true',
    ],
    [
      "an unknown operation",
      { projects: { admin: { write: {} } } },
      "projects.admin.write: unknown operation; operations are read, change",
    ],
    [
      "a rule that is not an object",
      { projects: { admin: { read: "all" } } },
      'projects.admin.read: expected an object mapping project fields to values ({} for every project), got "all"',
    ],
    [
      "an unknown field",
      student({ compny_id: 1 }),
      "projects.student.read.compny_id: unknown field; a rule may name company_id, created_by, project_id, project_status, teacher_id",
    ],
    ["a field no rule may name", student({ project_name: "x" }), "projects.student.read.project_name: unknown field"],
    [
      "text for an id",
      student({ company_id: "abc" }),
      'projects.student.read.company_id: expected a whole number from 1 to 2147483647, an array of them, or "$<claim>"; got "abc"',
    ],
    [
      "an id of 0",
      student({ company_id: 0 }),
      "projects.student.read.company_id: expected a whole number from 1 to 2147483647",
    ],
    [
      "a fraction for an id",
      student({ teacher_id: 1.5 }),
      "projects.student.read.teacher_id: expected a whole number from 1 to 2147483647 or null",
    ],
    [
      "an id past the range",
      student({ project_id: 2147483648 }),
      "projects.student.read.project_id: expected a whole number",
    ],
    [
      "null where a field always holds a value",
      student({ company_id: null }),
      "projects.student.read.company_id: expected a whole number from 1 to 2147483647, an array of them",
    ],
    [
      "a number for text",
      student({ project_status: 7 }),
      'projects.student.read.project_status: expected a string, an array of them, or "$<claim>"; got 7',
    ],
    [
      "a number for created_by",
      student({ created_by: 3 }),
      "projects.student.read.created_by: expected a string or null",
    ],
    [
      "an array with a wrong element",
      student({ company_id: [1, "2"] }),
      'projects.student.read.company_id: expected a whole number from 1 to 2147483647, an array of them, or "$<claim>"; got [1,"2"]',
    ],
    ["an empty array", student({ company_id: [] }), "projects.student.read.company_id: expected a whole number"],
    [
      "an object for a value",
      student({ company_id: { $in: [1] } }),
      'projects.student.read.company_id: expected a whole number from 1 to 2147483647, an array of them, or "$<claim>"; got {"$in":[1]}',
    ],
    [
      "a claim in an array",
      student({ company_id: ["$company_ids"] }),
      "projects.student.read.company_id: expected a whole number",
    ],
    [
      "a $ without a claim's name",
      student({ created_by: "$" }),
      'projects.student.read.created_by: "$" names no claim',
    ],
    [
      "$sub for a field of numbers",
      { projects: { teacher: { change: { teacher_id: "$sub" } } } },
      'projects.teacher.change.teacher_id: "$sub" is the caller\'s id, a string, and this field holds numbers',
    ],
  ])("when it holds %s, then the start stops with one line naming the file and the place", (_, content, expected) => {
    const { file, message } = startError(content);
    const prefix = `Invalid ACCESS_POLICY (${JSON.stringify(file)}): `;
    expect(message.slice(0, prefix.length)).toBe(prefix);
    expect(message.slice(prefix.length)).toContain(expected);
    expect(message).not.toContain("\n");
  });

  it("when it names a file that cannot be read, then the line says so", () => {
    const message = (() => {
      try {
        load({ ACCESS_POLICY: path.join(dir, "missing.json") });
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    })();
    expect(message).toMatch(/^Invalid ACCESS_POLICY \(".*missing\.json"\): cannot read the file \(ENOENT\)$/);
  });

  it("when it holds the contract's example, annotations and roles left out, then it loads", () => {
    expect(load({ ACCESS_POLICY: policyFile(CONTRACT_POLICY) }).accessPolicy).toBeDefined();
    const partial = {
      $comment: "teachers read their companies only",
      projects: { teacher: { read: { company_id: "$company_ids" } } },
    };
    expect(load({ ACCESS_POLICY: policyFile(partial) }).accessPolicyPath).toMatch(/policy-\d+\.json$/);
  });

  it("when it is unset, then no policy is loaded", () => {
    expect(load({})).toMatchObject({ accessPolicy: undefined, accessPolicyPath: undefined });
  });

  it("when the service is started with a bad policy file, then the process exits 1 printing exactly that one line", () => {
    const file = policyFile({ projects: { student: { read: { company: "$company_ids" } } } });
    const result = spawnSync(process.execPath, [path.join(REPO, "dist/src/index.js")], {
      env: { PATH: process.env.PATH, ACCESS_POLICY: file },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      `Invalid ACCESS_POLICY (${JSON.stringify(file)}): projects.student.read.company: unknown field; a rule may name company_id, created_by, project_id, project_status, teacher_id`,
    ]);
    expect(result.stdout).toBe("");
  });
});
