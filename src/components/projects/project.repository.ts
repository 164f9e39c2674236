// Data access of projects: the only module that touches the Project and ProjectRevision models. Returns plain
// records. It holds the techniques that make changes safe on FerretDB 1.24, where only an insert under a unique `_id`
// is atomic (conditional updates read, then write) and only a filter on `_id` alone uses an index:
//
// - Every read and write of one project is by its string `_id` (db/id-key.ts).
// - A change is committed by inserting its immutable change document under `_id` = revisionKey(project, n), n the
//   project's revision + 1, into the change log (project-changes.log.ts, which also gives it a log position `seq`).
//   Of concurrent changes exactly one such insert succeeds; the others re-read (now seeing the winner's change) and
//   re-decide. No conditional update decides anything.
// - Then the project document is brought up to revision n. Readers by id and writers that find revision n + 1
//   stored (a writer that died between its two writes, or one still between them) apply it — roll forward — and
//   write the result back, so an acknowledged change is never missing. Revisions store new values, not deltas: applying one twice is harmless,
//   which is what makes the non-atomic write-back safe.
// On MongoDB the same code is correct (the inserts are atomic there too) and each step is one indexed operation.
import type { Actor } from "../../auth/actor";
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { readKeysetPage } from "../../db/keyset";
import { withStoredDefaults } from "../../db/stored-fields";
import type { FieldTypesFit, HasFields } from "../../shared/field-checks";
import type { KeysetRead, KeysetWindow } from "../../shared/keyset-pagination";
import type { ProjectChangeLog } from "./project-changes.log";
import type { ProjectChangeDoc, ProjectState } from "./project-changes.model";
import {
  revisionKey,
  toChangeRecord,
  toProjectRecord,
  type ProjectChangeRecord,
  type ProjectOperation,
  type ProjectRecord,
} from "./project.records";
import type { ProjectChangeSet, ProjectDoc, ProjectModel } from "./project.model";
import { PROJECT_FIELDS } from "./project.model";
import { CreateProjectSchema, type ValidCreateProjectValues } from "./project.schemas";

/** The values of a new project: those of the create shape, checked by the service, and the name key it derives. */
export type NewProjectValues = ValidCreateProjectValues & Pick<ProjectDoc, "name_key">;

/** The stored fields a new project gets from the repository rather than from its creator. */
type SetByRepository = "_id" | "project_id" | "teacher_id" | "revision" | "created_by" | "created_at" | "updated_at";

true satisfies HasFields<
  ProjectDoc,
  NewProjectValues,
  "in CreateProjectSchema (project.schemas.ts) but not stored, so a new project would drop it: add it to PROJECT_FIELDS in project.fields.ts"
>;
true satisfies FieldTypesFit<
  ProjectDoc,
  NewProjectValues,
  "CreateProjectSchema (project.schemas.ts) gives it a value of another type than PROJECT_FIELDS (project.fields.ts) stores"
>;
true satisfies HasFields<
  NewProjectValues,
  Omit<ProjectDoc, SetByRepository>,
  "stored (PROJECT_FIELDS in project.fields.ts) but not in CreateProjectSchema: add it to project.schemas.ts, or to SetByRepository in project.repository.ts if ProjectRepository.create sets it"
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

const MAX_CLAIM_ATTEMPTS = 25;

/** Fields of a creation recorded in its history entry: those of the create shape, in its (the contract's) order. */
const CREATED_FIELDS = Object.keys(CreateProjectSchema.shape) as (keyof ValidCreateProjectValues)[];

const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function applyRevision(doc: ProjectDoc, revision: Pick<ProjectChangeDoc, "set" | "revision" | "at">): ProjectDoc {
  return { ...doc, ...revision.set, revision: revision.revision, updated_at: revision.at };
}

/** The project state a change document stores (every field but the internal ones). */
function stateOf({ _id: _key, name_key: _nameKey, ...state }: ProjectDoc): ProjectState {
  return state;
}

export class ProjectRepository {
  private atomicConditionalWrites?: Promise<boolean>;

  constructor(
    private readonly projects: ProjectModel,
    private readonly log: ProjectChangeLog,
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
    // Acknowledged only after this insert too, so an acknowledged creation is always in the history and the log.
    const seq = await this.log.append(
      {
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
        project: stateOf(doc),
      },
      0,
    );
    // Nothing else writes revision 1 of a new id.
    if (seq === undefined) throw new Error(`revision 1 of new project ${doc.project_id} already exists`);
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
    operation: Exclude<ProjectOperation, "createProject">,
    actor: Actor,
    decide: (current: ProjectRecord) => ProjectChangeSet,
  ): Promise<ChangeOutcome> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const stored = await this.projects.findOne({ _id: idKey(projectId) }).lean();
      if (!stored) return { status: "missing" };
      const { doc: current, seq: baseSeq } = await this.rollForwardWithSeq(stored);
      const set = decide(toProjectRecord(current));
      if (Object.keys(set).length === 0) return { status: "unchanged", project: toProjectRecord(current) };
      const revision: Omit<ProjectChangeDoc, "project" | "seq"> = {
        _id: revisionKey(projectId, current.revision + 1),
        project_id: projectId,
        revision: current.revision + 1,
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
      const next = applyRevision(current, revision);
      // Never below the position of the revision it builds on: a project's revisions keep their order in the log.
      const seq = await this.log.append({ ...revision, project: stateOf(next) }, baseSeq + 1);
      if (seq === undefined) continue; // another change took this revision: re-read and re-decide
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

  /** Projects by id, in key order, null for missing ids; one id is read (and rolled forward) like get(). */
  async findByIds(ids: readonly number[]): Promise<(ProjectRecord | null)[]> {
    if (ids.length === 1) return [await this.get(ids[0])];
    // Several: one query, the documents as stored (as lists show them, see list()).
    const docs = await this.projects.find({ project_id: { $in: [...ids] } }).lean();
    const byId = new Map(docs.map((doc) => [doc.project_id, toProjectRecord(doc)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * A keyset page of the projects matching the query, ordered by project_id (db/keyset.ts), shown as stored like
   * list(); the matches are counted only when options.total asks.
   */
  async pageByKeyset(
    query: ProjectQuery,
    window: KeysetWindow,
    options: { total: boolean },
  ): Promise<KeysetRead<ProjectRecord> & { total?: number }> {
    const [read, total] = await Promise.all([
      readKeysetPage(this.projects, { ...query }, "project_id", window),
      options.total ? this.projects.countDocuments(query) : undefined,
    ]);
    return { items: read.items.map(toProjectRecord), more: read.more, total };
  }

  /**
   * One connection page of each teacher's projects, in key order: one bounded keyset query per distinct teacher (and
   * one count each when asked), each served by the (teacher_id, project_id) index, as Teacher.projects does.
   */
  async pageByTeacherIds(
    teacherIds: readonly number[],
    window: KeysetWindow,
    options: { total: boolean },
  ): Promise<(KeysetRead<ProjectRecord> & { total?: number })[]> {
    const ids = [...new Set(teacherIds)];
    const pages = new Map(
      await Promise.all(
        ids.map(async (teacher_id) => [teacher_id, await this.pageByKeyset({ teacher_id }, window, options)] as const),
      ),
    );
    return teacherIds.map((id) => pages.get(id)!);
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
   * `_id`s, read in one `$in` (by the `_id` index, also on the embedded FerretDB).
   */
  async history(
    projectId: number,
    revision: number,
    bounds: { offset: number; limit: number },
  ): Promise<ProjectChangeRecord[]> {
    const newest = revision - bounds.offset;
    const oldest = Math.max(1, newest - bounds.limit + 1);
    const docs = (await this.log.revisions(projectId, oldest, newest)).reverse();
    // Projects stored before revisions existed have no entry for revision 1.
    return docs.flatMap((doc) => (doc ? [toChangeRecord(doc)] : []));
  }

  /**
   * The project as of its newest committed revision: applies revisions stored beyond the document's own (a writer
   * between, or dead between, its claim and its update) and writes the result back.
   */
  private async rollForward(doc: ProjectDoc): Promise<ProjectDoc> {
    // A document stored before a field existed reads with the field's declared default (revision 1).
    const stored = withStoredDefaults(PROJECT_FIELDS, doc);
    return (await this.rollForwardFrom(stored, await this.log.revision(stored.project_id, stored.revision + 1))).doc;
  }

  /**
   * rollForward, and the log position of the newest revision (0 when it has none: a project stored before the log).
   * The document's own revision is read beside the next one, so this costs no extra round trip.
   */
  private async rollForwardWithSeq(doc: ProjectDoc): Promise<{ doc: ProjectDoc; seq: number }> {
    const stored = withStoredDefaults(PROJECT_FIELDS, doc);
    const [own, next] = await Promise.all([
      this.log.revision(stored.project_id, stored.revision),
      this.log.revision(stored.project_id, stored.revision + 1),
    ]);
    const rolled = await this.rollForwardFrom(stored, next);
    return { doc: rolled.doc, seq: rolled.seq ?? own?.seq ?? 0 };
  }

  private async rollForwardFrom(
    doc: ProjectDoc,
    first: ProjectChangeDoc | null,
  ): Promise<{ doc: ProjectDoc; seq?: number }> {
    let current = doc;
    let seq: number | undefined;
    for (let next = first; next; next = await this.log.revision(doc.project_id, current.revision + 1)) {
      current = applyRevision(current, next);
      seq = next.seq;
    }
    if (current !== doc) await this.bringUp(current).catch(() => undefined); // best effort: the next reader retries
    return { doc: current, seq };
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
