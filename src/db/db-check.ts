// npm run db:check: every stored document that breaks the contract's rules (types, ranges, text rules, keys, a
// teacher_id or project_id that names nothing), by collection, id and field. The service never writes such a
// document; imports and direct writes can. Reads leave out what the API cannot answer and log it, so one bad document
// cannot break a list; this lists them all so an operator can fix them (docs: "Records the API cannot answer").
import type { Model } from "mongoose";
import { storedChangeProblems, storedProjectProblems } from "../components/projects";
import { storedStudentProblems } from "../components/students";
import { storedTeacherProblems } from "../components/teachers";
import type { StoredProblem } from "../shared/stored-rules";

export interface DatabaseProblem extends StoredProblem {
  collection: string;
  /** The document's `_id` as stored. */
  id: string;
}

export interface CheckSummary {
  documents: number;
  problems: number;
}

/** A model read as plain data: the check looks at what is stored, whatever the model's document type says. */
type PlainModel = Model<Record<string, unknown>>;
const plain = (model: unknown) => model as PlainModel;

interface CollectionCheck {
  model: PlainModel;
  problems(doc: Record<string, unknown>): StoredProblem[];
  /** Ids of other documents this one names (teacher_id, project_id), checked once every document was read. */
  references?: { field: string; target: PlainModel; targetField: string };
}

/** How many referenced ids are looked up in one query. */
const REFERENCE_BATCH = 500;
const PROGRESS_EVERY_MS = 5_000;

/** The collections the check reads (src/persistence.ts wires them). */
interface CheckedDatabase {
  models: Record<"Project" | "ProjectChange" | "Teacher" | "Student", unknown>;
}

export async function checkDatabase(
  db: CheckedDatabase,
  report: (problem: DatabaseProblem) => void,
  progress: (message: string) => void,
): Promise<CheckSummary> {
  const { Project, ProjectChange, Teacher, Student } = db.models;
  const checks: CollectionCheck[] = [
    {
      model: plain(Project),
      problems: storedProjectProblems,
      references: { field: "teacher_id", target: plain(Teacher), targetField: "teacher_id" },
    },
    { model: plain(Teacher), problems: storedTeacherProblems },
    { model: plain(Student), problems: storedStudentProblems },
    {
      model: plain(ProjectChange),
      problems: storedChangeProblems,
      references: { field: "project_id", target: plain(Project), targetField: "project_id" },
    },
  ];
  const summary: CheckSummary = { documents: 0, problems: 0 };
  const found = (problem: DatabaseProblem) => {
    summary.problems++;
    report(problem);
  };
  for (const check of checks) {
    const collection = check.model.collection.collectionName;
    const total = await check.model.estimatedDocumentCount();
    let read = 0;
    let lastProgress = Date.now();
    // Referenced id → the documents naming it.
    const referrers = new Map<number, string[]>();
    for await (const doc of check.model.find().lean().cursor()) {
      const record = doc;
      const id = String(record._id);
      for (const problem of check.problems(record)) found({ collection, id, ...problem });
      const reference = check.references && record[check.references.field];
      if (typeof reference === "number") referrers.set(reference, [...(referrers.get(reference) ?? []), id]);
      read++;
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        progress(`${collection}: ${read} of about ${total} documents checked`);
      }
    }
    summary.documents += read;
    if (check.references) await checkReferences(collection, check.references, referrers, found);
  }
  return summary;
}

async function checkReferences(
  collection: string,
  { field, target, targetField }: NonNullable<CollectionCheck["references"]>,
  referrers: Map<number, string[]>,
  found: (problem: DatabaseProblem) => void,
): Promise<void> {
  const ids = [...referrers.keys()];
  for (let start = 0; start < ids.length; start += REFERENCE_BATCH) {
    const batch = ids.slice(start, start + REFERENCE_BATCH);
    const existing = await target.find({ [targetField]: { $in: batch } }, { [targetField]: 1 }).lean();
    const present = new Set(existing.map((doc) => doc[targetField]));
    for (const missing of batch.filter((id) => !present.has(id))) {
      for (const id of referrers.get(missing)!) {
        found({
          collection,
          id,
          field,
          rule: `names ${target.collection.collectionName} ${missing}, which does not exist`,
        });
      }
    }
  }
}
