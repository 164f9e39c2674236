// Data access of projects: the only module that touches the Project model. Returns plain records. Written as for
// MongoDB in production (a replica set: database.ts refuses a standalone server), which the embedded FerretDB is too:
//
// - Every read and write of one project is by its string `_id` (db/id-key.ts); a read by id is one command, joined
//   with other reads of the same shape while the database is busy (db/coalesced-reads.ts: `_id: {$in}`, each its own).
// - A change is ONE transaction (db/transactions.ts): one conditional update of the project (findOneAndUpdate with
//   the conditions the rules need: the status it may come from, the teacher it must not have, the expected revision;
//   `$inc` of the revision; the document as it was gives the change's old values), then its log position and its log
//   entry (project-changes.log.ts). When the update matches nothing, the project is read in the same transaction to
//   say why: a rule (an error), or nothing to do.
// - A creation is one transaction too: its id, the project, its position and its entry.
// - Row rules (ACCESS_POLICY, project.access.ts) come as conditions on stored fields: reads add them to their filter,
//   and a change adds what the caller may change to its conditional update, so the rule is decided by the same
//   atomic step as the change.
import type { ClientSession, PipelineStage, QueryFilter } from "mongoose";
import type { Actor } from "../../auth/actor";
import { duplicateKeyFields, isDuplicateKeyError, type IdAllocator } from "../../db/id-allocator";
import type { CoalescedReads } from "../../db/coalesced-reads";
import { idKey } from "../../db/id-key";
import { readOrderedPage, type StoredOrder } from "../../db/keyset";
import { readPage, type LookupStage } from "../../db/page-read";
import type { FieldTypesFit, HasFields } from "../../shared/field-checks";
import type { KeysetRead } from "../../shared/keyset-pagination";
import type { OrderedWindow } from "../../shared/list-order";
import { allOf, type StoredFilter } from "../../shared/list-where";
import type { Transactions } from "../../db/transactions";
import type { ProjectChangeLog } from "./project-changes.log";
import { both, restricts, type ProjectQuery } from "./project.access";
import {
  changeEntry,
  stateOf,
  toChangeRecord,
  toProjectRecord,
  toSelectedProjectRecord,
  type ProjectChangeRecord,
  type ProjectField,
  type ProjectOperation,
  type ProjectRecord,
} from "./project.records";
import type { ProjectChangeSet, ProjectDoc, ProjectModel } from "./project.model";
import type { ValidCreateProjectValues } from "./project.schemas";

/** The values of a new project: those of the create shape, checked by the service, and the name key it derives. */
export type NewProjectValues = ValidCreateProjectValues & Pick<ProjectDoc, "name_key" | "name_folded">;

/** The stored fields a new project gets from the repository, not from its creator (their rules: project.stored.ts). */
export type SetByRepository =
  | "_id"
  | "project_id"
  | "teacher_id"
  | "revision"
  | "created_by"
  | "created_at"
  | "updated_at"
  | "change_seq"
  | "archived_at"
  | "archived";

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

export type { ProjectQuery } from "./project.access";

export type ChangeOutcome =
  | { status: "changed"; project: ProjectRecord }
  /** Nothing to change: nothing was recorded. */
  | { status: "unchanged"; project: ProjectRecord }
  | { status: "missing" };

/** A change as the service asks for it. */
export interface ChangeRequest {
  operation: Exclude<ProjectOperation, "createProject">;
  actor: Actor;
  /** The new values. */
  set: ProjectChangeSet;
  /** What the stored project must hold for the change to apply (a filter on its stored fields). */
  when: QueryFilter<ProjectDoc>;
  /** The caller's row rules: what it may read and change (`{}`: every project). Part of the conditional update. */
  allowed: ProjectQuery;
  /**
   * Says why `when` did not hold for `current` (read in the same transaction, so it is what the update saw): throws
   * the rule's error, or returns when there is nothing to do.
   */
  explain(current: ProjectRecord): void;
  /**
   * Runs in the change's transaction once its conditional update applied, before its log entry: what must hold of
   * other records when it commits (the teacher an assignment names still exists); throwing ends the change.
   */
  within?(session: ClientSession): Promise<void>;
}

/** Attempts of one creation: each failed one found its id taken by a project stored behind the service's back. */
const MAX_CREATE_ATTEMPTS = 50;

export class ProjectRepository {
  constructor(
    private readonly projects: ProjectModel,
    private readonly log: ProjectChangeLog,
    private readonly ids: IdAllocator,
    private readonly transactions: Transactions,
    private readonly reads: CoalescedReads,
  ) {}

  /**
   * Stores a new project (revision 1) under a new id with its creation entry, in one transaction. A duplicate key
   * is a taken name (`explainDuplicate` says so: thrown) or an id taken by a project stored by other means (the
   * sequence is raised past it, and the creation tried again).
   */
  async create(
    values: NewProjectValues,
    actor: Actor,
    explainDuplicate: (fields: string[]) => Error | undefined,
  ): Promise<ProjectRecord> {
    for (let attempt = 1; ; attempt++) {
      let project_id = 0;
      try {
        const { doc, seq } = await this.transactions.run(async (session) => {
          project_id = await this.ids.nextId("projects", session);
          const [created] = await this.projects.create(
            [{ project_id, ...values, teacher_id: null, revision: 1, created_by: actor.id }],
            { session },
          );
          const doc = created.toObject();
          const seq = await this.log.position(session);
          await this.log.append(changeEntry("createProject", actor, null, stateOf(doc), seq), session);
          return { doc, seq };
        });
        this.log.committed(seq);
        return toProjectRecord(doc);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // keyPattern names the unique index that refused it: one explainDuplicate knows (a taken name: its error),
        // else the id's (a project stored by other means holds it: raise the counter past it and try again).
        const explained = explainDuplicate(duplicateKeyFields(err));
        if (explained) throw explained;
        if (attempt >= MAX_CREATE_ATTEMPTS) throw err;
        await this.transactions.write(() => this.ids.atLeast("projects", project_id));
      }
    }
  }

  /**
   * A project by id; with `fields`, only those are read, and the record holds just those. `scope`: conditions it must
   * meet too (a caller's read rule), or it reads as absent.
   */
  async get(projectId: number, fields?: readonly ProjectField[], scope?: ProjectQuery): Promise<ProjectRecord | null> {
    const shape = `get\0${fields?.join() ?? "*"}\0${JSON.stringify(scope ?? {})}`;
    const doc = await this.reads.read(shape, idKey(projectId), async (keys) => {
      if (keys.length === 1) {
        const find = this.projects.findOne(filterOf({ _id: keys[0], ...scope }));
        if (fields) find.select(projectionOf(fields));
        const doc = await find.lean();
        return byKey(doc ? [doc] : []);
      }
      const find = this.projects.find(filterOf({ _id: { $in: keys }, ...scope })).limit(keys.length);
      if (fields) find.select(projectionOf(fields));
      return byKey(await find.lean());
    });
    return doc ? (fields ? toSelectedProjectRecord(fields) : toProjectRecord)(doc) : null;
  }

  /**
   * A project by id with what `join` (another collection's $lookup stage) puts into it, in one command: an
   * aggregation of the project by `_id`. With `fields`, only those project fields are read. `joined` is the stage's
   * `as` value of the project (undefined when there is no project).
   */
  async getJoined(
    projectId: number,
    fields: readonly ProjectField[] | undefined,
    join: LookupStage,
    scope?: ProjectQuery,
  ): Promise<{ project: ProjectRecord | null; joined: unknown }> {
    const shape = `joined\0${fields?.join() ?? "*"}\0${JSON.stringify(scope ?? {})}\0${JSON.stringify(join)}`;
    const doc = await this.reads.read(shape, idKey(projectId), async (keys) => {
      const pipeline: PipelineStage[] =
        keys.length === 1
          ? [{ $match: { _id: keys[0], ...scope } }, { $limit: 1 }]
          : [{ $match: { _id: { $in: keys }, ...scope } }, { $limit: keys.length }];
      if (fields) pipeline.push({ $project: projectionOf(fields) });
      pipeline.push(join);
      return byKey(await this.projects.aggregate<ProjectDoc & Record<string, unknown>>(pipeline));
    });
    if (!doc) return { project: null, joined: undefined };
    return { project: (fields ? toSelectedProjectRecord(fields) : toProjectRecord)(doc), joined: doc[join.$lookup.as] };
  }

  /** Applies one change: its conditional update, position and log entry in one transaction (see the header). */
  async change(projectId: number, request: ChangeRequest): Promise<ChangeOutcome> {
    const _id = idKey(projectId);
    const outcome = await this.transactions.run(async (session): Promise<ChangeOutcome & { seq?: number }> => {
      const at = new Date();
      const before = await this.projects
        .findOneAndUpdate(
          // The row rule holds at the moment of the change, or nothing changes.
          {
            ...request.when,
            ...(restricts(request.allowed) ? { $and: [request.allowed as QueryFilter<ProjectDoc>] } : {}),
            _id,
          },
          { $set: { ...request.set, updated_at: at }, $inc: { revision: 1 } },
          { returnDocument: "before", timestamps: false, session },
        )
        .lean();
      if (!before) {
        const current = await this.projects.findOne({ _id }).session(session).lean();
        if (!current) return { status: "missing" };
        // In the transaction's snapshot the project is what the update saw: the rule's error, or nothing to do.
        request.explain(toProjectRecord(current));
        return { status: "unchanged", project: toProjectRecord(current) };
      }
      await request.within?.(session);
      const old = stateOf(before);
      // `$inc` counts from 0 on a document stored without a revision (only written behind the service's back: opening
      // the database gives every project one), so the record says what the document now holds.
      // The state the log keeps holds no storage-only field (archived follows archived_at).
      const { archived: _archived, ...visible } = request.set;
      const next = { ...old, ...visible, revision: (old.revision ?? 0) + 1, updated_at: at };
      const seq = await this.log.position(session);
      await this.log.append(changeEntry(request.operation, request.actor, old, next, seq), session);
      return { status: "changed", project: toProjectRecord(next), seq };
    });
    if (outcome.seq !== undefined) this.log.committed(outcome.seq);
    return outcome;
  }

  /**
   * Deletes a project within the caller's change rule (`allowed`), with its last log entry, deleteProject (the
   * project as it was, one revision on), in one transaction: a change of the project committed before it is in the
   * project it deletes, and one after it finds no project (NOT_FOUND). "refused": the project exists outside
   * `allowed` (read in the same transaction).
   */
  async delete(
    projectId: number,
    actor: Actor,
    allowed: ProjectQuery,
  ): Promise<{ status: "deleted" | "refused"; project: ProjectRecord } | { status: "missing" }> {
    const _id = idKey(projectId);
    const outcome = await this.transactions.run(
      async (
        session,
      ): Promise<
        ({ status: "deleted" | "refused"; project: ProjectRecord } | { status: "missing" }) & { seq?: number }
      > => {
        const before = await this.projects
          .findOneAndDelete(
            { ...(restricts(allowed) ? { $and: [allowed as QueryFilter<ProjectDoc>] } : {}), _id },
            { session },
          )
          .lean();
        if (!before) {
          const current = await this.projects.findOne({ _id }).session(session).lean();
          return current ? { status: "refused", project: toProjectRecord(current) } : { status: "missing" };
        }
        const old = stateOf(before);
        const last = { ...old, revision: (old.revision ?? 0) + 1, updated_at: new Date() };
        const seq = await this.log.position(session);
        await this.log.append(changeEntry("deleteProject", actor, old, last, seq), session);
        return { status: "deleted", project: toProjectRecord(last), seq };
      },
    );
    if (outcome.seq !== undefined) this.log.committed(outcome.seq);
    return outcome;
  }

  /**
   * Projects matching the query, by project_id; `limit + 1` are read so has_more needs no count. With
   * `options.fields`, only those fields are read, and each record holds just those. With `options.join` (another
   * collection's $lookup stage), the page is one aggregation that reads what each project refers to too: `joined`
   * holds each item's `as` value, item by item.
   */
  async list(
    query: StoredFilter,
    bounds: { offset: number; limit: number },
    options: { total: boolean; fields?: readonly ProjectField[]; join?: LookupStage; sort?: Record<string, 1 | -1> },
  ): Promise<{ items: ProjectRecord[]; joined?: unknown[]; has_more: boolean; total?: number }> {
    const { fields, join } = options;
    const [docs, total] = await Promise.all([
      readPage(this.projects, {
        filter: query,
        sort: options.sort ?? { project_id: 1 },
        skip: bounds.offset,
        limit: bounds.limit + 1,
        projection: fields && pageProjectionOf(fields),
        join,
      }),
      options.total ? this.projects.countDocuments(filterOf(query)) : undefined,
    ]);
    const toRecord = fields ? toSelectedProjectRecord(fields) : toProjectRecord;
    const page = docs.slice(0, bounds.limit);
    return {
      items: page.map((doc) => toRecord(doc)),
      joined: join && page.map((doc) => doc[join.$lookup.as]),
      has_more: docs.length > bounds.limit,
      total,
    };
  }

  /** How many projects (archived ones included) have the teacher, in `session`'s transaction. */
  async countOfTeacher(teacher_id: number, session: ClientSession): Promise<number> {
    return this.projects.countDocuments({ teacher_id }).session(session);
  }

  /** Projects by id, in key order, null for missing ids (and those outside `scope`); one id is read like get(). */
  async findByIds(ids: readonly number[], scope?: ProjectQuery): Promise<(ProjectRecord | null)[]> {
    if (ids.length === 1) return [await this.get(ids[0], undefined, scope)];
    const query = both({ project_id: { $in: [...ids] } }, scope ?? {});
    if (!query) return ids.map(() => null);
    const docs = await this.projects.find(filterOf(query)).lean();
    const byId = new Map(docs.map((doc) => [doc.project_id, toProjectRecord(doc)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * A keyset page of the projects matching the query, ordered by project_id (db/keyset.ts); the matches are counted
   * only when options.total asks. With `options.fields`, only those fields are read, and each record holds just those;
   * with `options.join`, `joined` holds each item's `as` value, as list() gives it.
   */
  async pageByKeyset(
    query: StoredFilter,
    window: OrderedWindow,
    order: StoredOrder,
    options: { total: boolean; fields?: readonly ProjectField[]; join?: LookupStage },
  ): Promise<KeysetRead<ProjectRecord> & { joined?: unknown[]; total?: number }> {
    const { fields, join } = options;
    const [read, total] = await Promise.all([
      readOrderedPage(this.projects, query, order, window, fields && pageProjectionOf(fields), join),
      options.total ? this.projects.countDocuments(filterOf(query)) : undefined,
    ]);
    const toRecord = fields ? toSelectedProjectRecord(fields) : toProjectRecord;
    return {
      items: read.items.map((doc) => toRecord(doc)),
      joined: join && read.items.map((doc) => doc[join.$lookup.as]),
      more: read.more,
      total,
    };
  }

  /**
   * One connection page of each teacher's projects, in key order: one bounded keyset query per distinct teacher (and
   * one count each when asked), each served by the (teacher_id, project_id) index, as Teacher.projects does.
   */
  async pageByTeacherIds(
    teacherIds: readonly number[],
    window: OrderedWindow,
    order: StoredOrder,
    options: { total: boolean },
    query: StoredFilter = {},
  ): Promise<(KeysetRead<ProjectRecord> & { total?: number })[]> {
    const ids = [...new Set(teacherIds)];
    const pageOf = (teacher_id: number) => this.pageByKeyset(allOf({ teacher_id }, query), window, order, options);
    const pages = new Map(
      await Promise.all(ids.map(async (teacher_id) => [teacher_id, await pageOf(teacher_id)] as const)),
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
    fields?: readonly ProjectField[],
    query: StoredFilter = {},
    sort: Record<string, 1 | -1> = { project_id: 1 },
  ): Promise<ProjectRecord[][]> {
    const ids = [...new Set(teacherIds)];
    const toRecord = fields ? toSelectedProjectRecord(fields) : toProjectRecord;
    const pages = await Promise.all(
      ids.map(async (teacher_id) => {
        const find = this.projects.find(filterOf(allOf({ teacher_id }, query)));
        if (fields) find.select(pageProjectionOf(fields));
        const docs = await find.sort(sort).skip(bounds.offset).limit(bounds.limit).lean();
        return [teacher_id, docs.map((doc) => toRecord(doc))] as const;
      }),
    );
    const byTeacher = new Map(pages);
    return teacherIds.map((id) => byTeacher.get(id)!);
  }

  /**
   * How many projects match the query, and (with `groupBy`, a stored field) how many hold each of its values: the
   * `limit` largest groups, largest first, then by value (null first), as one aggregation ($match, $group with $sum,
   * $sort, $limit) beside the count.
   */
  async counts(
    query: StoredFilter,
    groupBy: string | undefined,
    limit: number,
  ): Promise<{ total: number; groups: { value: unknown; count: number }[] }> {
    const [total, groups] = await Promise.all([
      this.projects.countDocuments(filterOf(query)),
      groupBy
        ? this.projects.aggregate<{ _id: unknown; count: number }>([
            { $match: query },
            { $group: { _id: `$${groupBy}`, count: { $sum: 1 } } },
            { $sort: { count: -1, _id: 1 } },
            { $limit: limit },
          ])
        : [],
    ]);
    return { total, groups: groups.map((group) => ({ value: group._id ?? null, count: group.count })) };
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
}

/** Conditions on stored fields (a list's filter, a row rule) as Mongoose's filter type. */
function filterOf(conditions: object): QueryFilter<ProjectDoc> {
  return conditions as QueryFilter<ProjectDoc>;
}

/** Documents by their `_id`. */
function byKey<D extends { _id: string }>(docs: D[]): Map<string, D> {
  return new Map(docs.map((doc) => [doc._id, doc]));
}

/** The projection that reads these fields only (and `_id`, as MongoDB's inclusions do: reads by key need it). */
function projectionOf(fields: readonly ProjectField[]): Record<string, 1> {
  return Object.fromEntries(fields.map((field) => [field, 1]));
}

/**
 * The projection of a page's documents: these fields only, without `_id` (a record has none, and a page finds its
 * documents by their order): one key and one string less for the driver to decode in each of a page's documents.
 */
function pageProjectionOf(fields: readonly ProjectField[]): Record<string, 0 | 1> {
  return { _id: 0, ...projectionOf(fields) };
}
