// Data access of projects: the only module that touches the Project and ProjectRevision models. Returns plain
// records. It holds the techniques that make changes safe on FerretDB 1.24, where only an insert under a unique `_id`
// is atomic (conditional updates read, then write) and only a filter on `_id` alone uses an index:
//
// - Every read and write of one project is by its string `_id` (db/id-key.ts).
// - A change is committed by inserting its immutable revision document under `_id` = revisionKey(project, n), n the
//   project's revision + 1. Of concurrent changes exactly one such insert succeeds; the others get a duplicate key,
//   re-read (now seeing the winner's change) and re-decide. No conditional update decides anything.
// - Then the project document is brought up to revision n. Readers by id and writers that find revision n + 1
//   stored (a writer that died between its two writes, or one still between them) apply it — roll forward — and
//   write the result back, so an acknowledged change is never missing. Revisions store new values, not deltas: applying one twice is harmless,
//   which is what makes the non-atomic write-back safe.
// On MongoDB the same code is correct (the inserts are atomic there too) and each step is one indexed operation.
import type { Actor } from "../../auth/actor";
import type { IdAllocator } from "../../db/id-allocator";
import { isDuplicateKeyError } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import type { RecordOf } from "../../db/record-of";
import type {
  ProjectChangeSet,
  ProjectDoc,
  ProjectModel,
  ProjectRevisionDoc,
  ProjectRevisionModel,
} from "./project.model";

/** A project as the service hands it out (fields declared once, in ProjectDoc). */
export type ProjectRecord = RecordOf<ProjectDoc, "name_key">;

export interface FieldChangeRecord {
  field: string;
  from: string | null;
  to: string | null;
}

export interface ProjectChangeRecord {
  revision: number;
  operation: string;
  actor_id: string | null;
  actor_role: string;
  at: string;
  changes: FieldChangeRecord[];
}

/** The values of a new project, checked by the service; the repository adds the id, revision and who created it. */
export type NewProjectValues = Omit<
  ProjectDoc,
  "_id" | "project_id" | "teacher_id" | "revision" | "created_by" | "created_at" | "updated_at"
>;

export interface ProjectQuery {
  company_id?: number;
  teacher_id?: number;
  project_status?: string;
}

export type ChangeOutcome =
  | { status: "changed"; project: ProjectRecord }
  /** `decide` returned no new values: nothing was recorded. */
  | { status: "unchanged"; project: ProjectRecord }
  | { status: "missing" }
  /** Lost the claim on every attempt: other changes kept committing first. */
  | { status: "contended" };

/** The `_id` of revision `revision` of project `projectId`: unique, so inserting it is the atomic claim. */
export const revisionKey = (projectId: number, revision: number): string => `${idKey(projectId)}:${revision}`;

const MAX_CLAIM_ATTEMPTS = 25;

/** Fields of a creation recorded in its history entry, in the contract's order. */
const CREATED_FIELDS = [
  "project_name",
  "project_desc",
  "company_id",
  "project_status",
  "project_url",
  "start_date",
  "end_date",
] as const;

const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function toProjectRecord(doc: ProjectDoc): ProjectRecord {
  return {
    project_id: doc.project_id,
    project_name: doc.project_name,
    project_desc: doc.project_desc,
    company_id: doc.company_id,
    project_status: doc.project_status,
    project_url: doc.project_url ?? null,
    start_date: doc.start_date,
    end_date: doc.end_date,
    teacher_id: doc.teacher_id ?? null,
    // Projects stored before revisions existed count as revision 1.
    revision: doc.revision ?? 1,
    created_by: doc.created_by ?? null,
    created_at: new Date(doc.created_at).toISOString(),
    updated_at: new Date(doc.updated_at).toISOString(),
  };
}

function toChangeRecord(doc: ProjectRevisionDoc): ProjectChangeRecord {
  return {
    revision: doc.revision,
    operation: doc.operation,
    actor_id: doc.actor_id ?? null,
    actor_role: doc.actor_role,
    at: new Date(doc.at).toISOString(),
    changes: (doc.changes ?? []).map((c) => ({ field: c.field, from: c.from ?? null, to: c.to ?? null })),
  };
}

function applyRevision(doc: ProjectDoc, revision: ProjectRevisionDoc): ProjectDoc {
  return { ...doc, ...revision.set, revision: revision.revision, updated_at: revision.at };
}

export class ProjectRepository {
  private atomicConditionalWrites?: Promise<boolean>;

  constructor(
    private readonly projects: ProjectModel,
    private readonly revisions: ProjectRevisionModel,
    private readonly ids: IdAllocator,
  ) {}

  /**
   * Stores a new project (revision 1) under a new id, then its creation entry. `explainDuplicate` tells a taken
   * name apart from an id collision (see IdAllocator.insertWithNewId).
   */
  async create(
    values: NewProjectValues,
    actor: Actor,
    explainDuplicate: () => Promise<Error | undefined>,
  ): Promise<ProjectRecord> {
    const at = new Date();
    const created = await this.ids.insertWithNewId(
      "projects",
      this.projects,
      (project_id) =>
        this.projects.create({ project_id, ...values, teacher_id: null, revision: 1, created_by: actor.id }),
      explainDuplicate,
    );
    const doc = created.toObject();
    // Acknowledged only after this insert too, so an acknowledged creation is always in the history.
    await this.revisions.create({
      _id: revisionKey(doc.project_id, 1),
      project_id: doc.project_id,
      revision: 1,
      operation: "createProject",
      actor_id: actor.id,
      actor_role: actor.role,
      at,
      set: {},
      changes: CREATED_FIELDS.filter((field) => values[field] !== null).map((field) => ({
        field,
        from: null,
        to: asText(values[field]),
      })),
    } satisfies ProjectRevisionDoc);
    return toProjectRecord(doc);
  }

  /** Whether the company already has a project whose name folds to nameKey. */
  async nameTaken(company_id: number, name_key: string): Promise<boolean> {
    return (await this.projects.exists({ company_id, name_key })) !== null;
  }

  async get(projectId: number): Promise<ProjectRecord | null> {
    const doc = await this.projects.findOne({ _id: idKey(projectId) }).lean();
    return doc ? toProjectRecord(await this.rollForward(doc)) : null;
  }

  /**
   * Applies one change. `decide` sees the current project and returns the new values, or throws (the rules are the
   * service's); it is called again with the newer state whenever a concurrent change committed first.
   */
  async change(
    projectId: number,
    operation: string,
    actor: Actor,
    decide: (current: ProjectRecord) => ProjectChangeSet,
  ): Promise<ChangeOutcome> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const stored = await this.projects.findOne({ _id: idKey(projectId) }).lean();
      if (!stored) return { status: "missing" };
      const current = await this.rollForward(stored);
      const set = decide(toProjectRecord(current));
      if (Object.keys(set).length === 0) return { status: "unchanged", project: toProjectRecord(current) };
      const revision: ProjectRevisionDoc = {
        _id: revisionKey(projectId, (current.revision ?? 1) + 1),
        project_id: projectId,
        revision: (current.revision ?? 1) + 1,
        operation,
        actor_id: actor.id,
        actor_role: actor.role,
        at: new Date(),
        set,
        changes: (Object.keys(set) as (keyof ProjectChangeSet)[]).map((field) => ({
          field,
          from: asText(current[field]),
          to: asText(set[field]),
        })),
      };
      try {
        await this.revisions.create(revision);
      } catch (err) {
        if (isDuplicateKeyError(err)) continue; // another change took this revision: re-read and re-decide
        throw err;
      }
      const next = applyRevision(current, revision);
      // Committed by the insert above: should this update fail, readers roll forward to the change anyway.
      await this.bringUp(next).catch(() => undefined);
      return { status: "changed", project: toProjectRecord(next) };
    }
    return { status: "contended" };
  }

  /**
   * Projects matching the query, by project_id; `limit + 1` are read so has_more needs no count. Lists (and
   * findByTeacherIds) show the documents as stored, without the per-item revision check of get(): that would cost a
   * read per item. A change shows in lists once its writer's second write lands; if the writer died in between,
   * once the project is next read by id or changed.
   */
  async list(
    query: ProjectQuery,
    bounds: { offset: number; limit: number },
    options: { total: boolean },
  ): Promise<{ items: ProjectRecord[]; has_more: boolean; total?: number }> {
    const [docs, total] = await Promise.all([
      this.projects
        .find(query)
        .sort({ project_id: 1 })
        .skip(bounds.offset)
        .limit(bounds.limit + 1)
        .lean(),
      options.total ? this.projects.countDocuments(query) : undefined,
    ]);
    return { items: docs.slice(0, bounds.limit).map(toProjectRecord), has_more: docs.length > bounds.limit, total };
  }

  /**
   * One page of each teacher's projects, in key order, each ordered by project_id: one query per distinct teacher,
   * cut by the query itself (`skip`/`limit` on the (teacher_id, project_id) index). Neither MongoDB's find nor
   * FerretDB's aggregation can cut a page per teacher in one query, and one query for all would read every project of
   * these teachers: this way the rows read stay bounded by the page, however many projects teachers have.
   */
  async findByTeacherIds(
    teacherIds: readonly number[],
    bounds: { offset: number; limit: number },
  ): Promise<ProjectRecord[][]> {
    const ids = [...new Set(teacherIds)];
    const pages = await Promise.all(
      ids.map(async (teacher_id) => {
        const docs = await this.projects
          .find({ teacher_id })
          .sort({ project_id: 1 })
          .skip(bounds.offset)
          .limit(bounds.limit)
          .lean();
        return [teacher_id, docs.map(toProjectRecord)] as const;
      }),
    );
    const byTeacher = new Map(pages);
    return teacherIds.map((id) => byTeacher.get(id)!);
  }

  /**
   * A page of a project's history, newest first. Revisions are numbered 1…revision, so the page is a range of
   * `_id`s read one by one (each a primary-key read; a `$in` would read the whole collection on FerretDB).
   */
  async history(
    projectId: number,
    revision: number,
    bounds: { offset: number; limit: number },
  ): Promise<ProjectChangeRecord[]> {
    const newest = revision - bounds.offset;
    const oldest = Math.max(1, newest - bounds.limit + 1);
    const numbers: number[] = [];
    for (let n = newest; n >= oldest; n--) numbers.push(n);
    const docs = await Promise.all(
      numbers.map((n) => this.revisions.findOne({ _id: revisionKey(projectId, n) }).lean()),
    );
    // Projects stored before revisions existed have no entry for revision 1.
    return docs.flatMap((doc) => (doc ? [toChangeRecord(doc)] : []));
  }

  /**
   * The project as of its newest committed revision: applies revisions stored beyond the document's own (a writer
   * between, or dead between, its claim and its update) and writes the result back.
   */
  private async rollForward(doc: ProjectDoc): Promise<ProjectDoc> {
    let current = doc;
    for (;;) {
      const next = await this.revisions
        .findOne({ _id: revisionKey(doc.project_id, (current.revision ?? 1) + 1) })
        .lean();
      if (!next) break;
      current = applyRevision(current, next);
    }
    if (current !== doc) await this.bringUp(current).catch(() => undefined); // best effort: the next reader retries
    return current;
  }

  /**
   * Writes a project's state of revision n. On MongoDB only unless the document is already there or beyond (an atomic
   * conditional update). On FerretDB by `_id` alone: any other condition turns this point write into a scan of the
   * collection (see db/id-key.ts), and it would not be atomic anyway. There a slow writer may set an older revision
   * over a newer one; readers by id roll forward again (revisions hold new values), so nothing is lost.
   */
  private async bringUp(doc: ProjectDoc): Promise<void> {
    const filter = (await this.conditionalWritesAreAtomic())
      ? { _id: idKey(doc.project_id), revision: { $not: { $gte: doc.revision } } }
      : { _id: idKey(doc.project_id) };
    await this.projects.updateOne(
      filter,
      {
        $set: {
          teacher_id: doc.teacher_id ?? null,
          project_status: doc.project_status,
          revision: doc.revision,
          updated_at: doc.updated_at,
        },
      },
      { timestamps: false },
    );
  }

  /** MongoDB: yes. FerretDB (its buildInfo carries ferretdbVersion): no — it reads, then writes. Asked once. */
  private conditionalWritesAreAtomic(): Promise<boolean> {
    this.atomicConditionalWrites ??= this.projects.db
      .db!.admin()
      .command({ buildInfo: 1 })
      .then((info) => !("ferretdbVersion" in info))
      .catch(() => true);
    return this.atomicConditionalWrites;
  }
}
