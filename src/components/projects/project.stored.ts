// The contract's rules for a stored project document and a change-log entry (npm run db:check): see storedRules.
import { z } from "zod";
import {
  quoted,
  storedId,
  storedProblems,
  storedRules,
  storedTimestamp,
  type StoredProblem,
} from "../../shared/stored-rules";
import type { HasFields } from "../../shared/field-checks";
import { foldedName, nameKey, SAFE_INT_MAX } from "../../shared/validation";
import { ACTOR_ROLES } from "../../auth/actor";
import { voidKey, type ProjectChangeDoc } from "./project-changes.model";
import type { ProjectDoc } from "./project.model";
import { PROJECT_OPERATIONS, revisionKey } from "./project.records";
import type { SetByRepository } from "./project.repository";
import { CreateProjectSchema } from "./project.schemas";

/** What the service adds to a project's input when it stores it (change_seq: none before the change log; archived_at: when archived). */
const StoredProjectFields = z.strictObject({
  project_id: storedId(),
  teacher_id: storedId().nullable(),
  revision: storedId(),
  created_by: z.string().nullable(),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
  change_seq: storedId(SAFE_INT_MAX).nullish(),
  // Absent on projects stored before archiving existed: not archived.
  archived_at: z.iso.datetime({ error: "must be an ISO 8601 time in UTC" }).nullish(),
  archived: z.boolean({ error: "must be true or false" }).optional(),
});

/** A stored project: the rules of storedRules, and name_key and name_folded derived from project_name. */
export const storedProjectProblems = storedRules(CreateProjectSchema, StoredProjectFields, "project_id", (doc) => {
  if (typeof doc.project_name !== "string") return [];
  const problems: StoredProblem[] = [];
  if (doc.name_key !== nameKey(doc.project_name)) {
    problems.push({
      field: "name_key",
      rule: `must be ${quoted(nameKey(doc.project_name))}, project_name folded (stored: ${quoted(doc.name_key)})`,
    });
  }
  if (doc.name_folded !== foldedName(doc.project_name)) {
    problems.push({
      field: "name_folded",
      rule: `must be ${quoted(foldedName(doc.project_name))}, project_name folded for lists (stored: ${quoted(doc.name_folded)})`,
    });
  }
  return problems;
});

// The rules cover exactly the stored fields: project.repository.ts checks that CreateProjectSchema's fields are stored
// and that every other stored field but name_key (checked above) is in SetByRepository; these check the rest.
true satisfies HasFields<
  z.input<typeof StoredProjectFields>,
  Omit<Pick<ProjectDoc, SetByRepository>, "_id">,
  "set by ProjectRepository.create (SetByRepository in project.repository.ts) but npm run db:check has no rule for it: add it to StoredProjectFields in project.stored.ts"
>;
true satisfies HasFields<
  ProjectDoc,
  z.input<typeof StoredProjectFields>,
  "in StoredProjectFields (project.stored.ts) but not stored: add it to PROJECT_FIELDS in project.fields.ts, or remove it from StoredProjectFields"
>;

/** A committed change of the change log (project-changes.model.ts). */
const StoredChangeFields = z.strictObject({
  seq: storedId(SAFE_INT_MAX),
  project_id: storedId(),
  revision: storedId(),
  operation: z.enum(PROJECT_OPERATIONS, { error: `must be one of ${PROJECT_OPERATIONS.join(", ")}` }),
  actor_id: z.string().nullable(),
  actor_role: z.enum(ACTOR_ROLES, { error: `must be one of ${ACTOR_ROLES.join(", ")}` }),
  at: storedTimestamp(),
  set: z.record(z.string(), z.unknown(), { error: "must be an object of the new values" }),
  changes: z.array(z.strictObject({ field: z.string(), from: z.string().nullable(), to: z.string().nullable() }), {
    error: "must be a list of {field, from, to} with text or null values",
  }),
  project: z.record(z.string(), z.unknown(), { error: "must be the project's state after the change" }),
});

type CheckedChangeFields = z.input<typeof StoredChangeFields> & Pick<ProjectChangeDoc, "_id">;
true satisfies HasFields<
  CheckedChangeFields,
  ProjectChangeDoc,
  "stored (ProjectChangeDoc in project-changes.model.ts) but npm run db:check has no rule for it: add it to StoredChangeFields in this file"
>;
true satisfies HasFields<
  ProjectChangeDoc,
  CheckedChangeFields,
  "npm run db:check has a rule for it but it is not stored: remove it from StoredChangeFields in this file"
>;

/** An entry of the change log: a committed change, or a void position (`_id` "void:<seq>"). */
export function storedChangeProblems(doc: Record<string, unknown>): StoredProblem[] {
  if (doc.void === true) {
    const problems = storedProblems(doc, z.strictObject({ seq: storedId(SAFE_INT_MAX) }));
    if (Number.isInteger(doc.seq) && doc._id !== voidKey(doc.seq as number)) {
      problems.push({ field: "_id", rule: `must be "${voidKey(doc.seq as number)}" (stored: ${quoted(doc._id)})` });
    }
    return problems;
  }
  const problems = storedProblems(doc, StoredChangeFields);
  if (Number.isInteger(doc.project_id) && Number.isInteger(doc.revision)) {
    const key = revisionKey(doc.project_id as number, doc.revision as number);
    if (doc._id !== key) problems.push({ field: "_id", rule: `must be "${key}" (stored: ${quoted(doc._id)})` });
  }
  const state = doc.project as Record<string, unknown> | undefined;
  if (state && typeof state === "object") {
    // The state after the change: a project's stored fields, of this project at this revision.
    for (const problem of [
      ...storedProblems(state, CreateProjectSchema),
      ...storedProblems(state, StoredProjectFields),
    ]) {
      problems.push({ field: `project.${problem.field}`, rule: problem.rule });
    }
    for (const key of ["project_id", "revision"] as const) {
      if (state[key] !== doc[key]) {
        problems.push({
          field: `project.${key}`,
          rule: `must be ${quoted(doc[key])}, the change's own (stored: ${quoted(state[key])})`,
        });
      }
    }
  }
  return problems;
}
