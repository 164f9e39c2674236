// Project use cases: create, assign a teacher, change status, read, list and history. The rules live here; the
// repository (project.repository.ts) stores, claims revisions and returns plain records. Row rules (ACCESS_POLICY,
// project.access.ts) come with each call as the caller's ProjectAccess: reads hand its read rule to the repository as
// part of their filter (a project outside it reads as absent), changes hand what the caller may change to the
// conditional update, and a creation must give a project its creator may read.
import { answerRulesOf } from "../../db/answer-rules";
import { SYSTEM_ACTOR, type Actor } from "../../auth/actor";
import type { Caller } from "../../auth/caller";
import { badRequest, conflict, FieldErrorReason, forbidden, notFound } from "../../shared/errors";
import { connectionOf, type Connection, type ConnectionRequest, type KeysetRead } from "../../shared/keyset-pagination";
import { globalIdOf, type DeletedRecord } from "../../shared/global-id";
import {
  listOrder,
  orderedCursorOf,
  orderedWindow,
  sortOf,
  storedOrderOf,
  type ListOrder,
  type OrderInput,
} from "../../shared/list-order";
import { allOf, whereFilter, type StoredFilter, type WhereInput } from "../../shared/list-where";
import {
  MAX_GROUPS,
  PROJECT_GROUP_FIELDS,
  PROJECT_ORDERS,
  PROJECT_WHERE_FIELDS,
  type ProjectGroupField,
} from "./project.where";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { RecordGuard, type AnswerRules, type ReportUnanswerable } from "../../shared/record-guard";
import { foldedName, nameKey, validate } from "../../shared/validation";
import type { RelatedTeacher, TeacherService } from "../teachers";
import {
  accessOf,
  both,
  meets,
  UNRESTRICTED,
  type ProjectAccess,
  type ProjectAccessPolicy,
  type RuleField,
} from "./project.access";
import { PROJECT_FIELDS, PROJECT_STORAGE_ONLY } from "./project.fields";
import type { ProjectChangeRecord, ProjectField, ProjectRecord } from "./project.records";
import type { ChangeOutcome, ChangeRequest, ProjectQuery, ProjectRepository } from "./project.repository";
import {
  AssignTeacherRequest,
  CreateProjectSchema,
  ProjectFilterSchema,
  ProjectIdArg,
  UpdateProjectStatusRequest,
  type AssignTeacherValues,
  type CreateProjectValues,
  type ProjectFilter,
  type UpdateProjectStatusValues,
} from "./project.schemas";
import { assertTransition, initialStatusRule, statusesLeadingTo, type StatusWorkflow } from "./status-workflow";

export type { CreateProjectValues, ProjectFilter } from "./project.schemas";
export type { ProjectChangeRecord, ProjectField, ProjectRecord } from "./project.records";

/** What the output type of each returned field needs (see shared/record-guard.ts). */
export const PROJECT_ANSWER_RULES: AnswerRules<ProjectRecord> = answerRulesOf(PROJECT_FIELDS, PROJECT_STORAGE_ONLY, {
  start_date: "date",
  end_date: "date",
});

/** The field a project read joins its teacher into (no stored field has this name). */
const JOINED_TEACHER = "joined_teacher";

/**
 * A page read with its teachers (options.teachers): each item's teacher by teacher_id, read in the page's command, as
 * the teacher's findByIds would give it (null: none, or one the API cannot answer).
 */
export interface WithTeachers {
  teachers?: ReadonlyMap<number, RelatedTeacher | null>;
}

export class ProjectService {
  private readonly guard: RecordGuard<ProjectRecord>;

  constructor(
    private readonly projects: ProjectRepository,
    private readonly teachers: TeacherService,
    private readonly workflow: StatusWorkflow | undefined,
    report: ReportUnanswerable,
    /** ACCESS_POLICY's row rules; undefined: every caller reads and changes every project, as its role allows. */
    private readonly policy?: ProjectAccessPolicy,
  ) {
    this.guard = new RecordGuard("projects", "project_id", PROJECT_ANSWER_RULES, report);
  }

  /** The caller's row rules, compiled once per request (the transports keep them in the request's context). */
  accessOf(caller: Caller): ProjectAccess {
    return accessOf(this.policy, caller);
  }

  /** The statuses the workflow allows, in its order; empty when any status is allowed. */
  statuses(): string[] {
    return this.workflow ? [...this.workflow.statuses] : [];
  }

  async create(
    input: CreateProjectValues,
    actor: Actor = SYSTEM_ACTOR,
    access: ProjectAccess = UNRESTRICTED,
  ): Promise<ProjectRecord> {
    const valid = validate(CreateProjectSchema, input, initialStatusRule(this.workflow));
    const { project_name, company_id } = valid;
    // The new project as the read rule sees it: no id yet (a rule naming project_id cannot hold), no teacher.
    assertReadable(
      { company_id, project_status: valid.project_status, created_by: actor.id, teacher_id: null },
      access,
    );
    const values = { ...valid, name_key: nameKey(project_name), name_folded: foldedName(project_name) };
    // The unique index that refused it names its fields: the company's names, or none the service knows.
    return this.projects.create(values, actor, (fields) =>
      fields.includes("name_key")
        ? conflict(
            `project_name "${project_name}" is taken: company_id ${company_id} already has a project of that name (ignoring case and surrounding spaces)`,
            "project_name",
            FieldErrorReason.TAKEN,
          )
        : undefined,
    );
  }

  async assignTeacher(
    projectId: number,
    input: AssignTeacherValues,
    actor: Actor = SYSTEM_ACTOR,
    access: ProjectAccess = UNRESTRICTED,
  ): Promise<ProjectRecord> {
    const {
      projectId: project_id,
      new_teacher_id: teacher_id,
      expected_revision,
    } = validate(AssignTeacherRequest, { projectId, ...input });
    const outcome = await this.change(project_id, access, {
      // The teacher must exist when the assignment commits: the transaction writes it (TeacherService.holdFor), so a
      // deleteTeacher at the same moment conflicts with it and one of the two waits or is tried again after the other.
      within: (session) => this.teachers.holdFor(teacher_id, session),
      operation: "assignTeacher",
      actor,
      set: { teacher_id },
      when: { teacher_id: { $ne: teacher_id }, ...revisionIs(expected_revision) },
      explain: (current) => {
        this.guard.one(current);
        checkRevision(current, expected_revision);
        throw conflict(
          `teacher ${teacher_id} is already assigned to project ${project_id}`,
          "new_teacher_id",
          FieldErrorReason.ALREADY_ASSIGNED,
        );
      },
    });
    return this.guard.one(result(project_id, outcome));
  }

  async updateStatus(
    projectId: number,
    input: UpdateProjectStatusValues,
    actor: Actor = SYSTEM_ACTOR,
    access: ProjectAccess = UNRESTRICTED,
  ): Promise<ProjectRecord> {
    const {
      projectId: project_id,
      project_status: next,
      expected_revision,
    } = validate(UpdateProjectStatusRequest, { projectId, ...input });
    // The status it replaces is in the update's filter: each success is a transition the workflow allows from it.
    const outcome = await this.change(project_id, access, {
      operation: "updateProjectStatus",
      actor,
      set: { project_status: next },
      when: { project_status: statusesLeadingTo(this.workflow, next), ...revisionIs(expected_revision) },
      explain: (current) => {
        this.guard.one(current);
        checkRevision(current, expected_revision);
        // The status it has is allowed to become the new one (a transition the workflow allows, or none): it is
        // the new one already, and setting it again changes nothing.
        assertTransition(this.workflow, current.project_status, next);
      },
    });
    return this.guard.one(result(project_id, outcome));
  }

  /**
   * Archives a project: a revision of its own (archived_at set), under the caller's change rule. An archived project
   * leaves the lists and cannot be changed until it is unarchived; archiving it again is CONFLICT (ARCHIVED).
   */
  async archive(projectId: number, actor: Actor = SYSTEM_ACTOR, access: ProjectAccess = UNRESTRICTED) {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const outcome = await this.change(project_id, access, {
      operation: "archiveProject",
      actor,
      set: { archived_at: new Date().toISOString(), archived: true },
      when: {},
      // Not archived and still not matched: nothing (the archived case is answered for every change, in change()).
      explain: (current) => void this.guard.one(current),
    });
    return this.guard.one(result(project_id, outcome));
  }

  /** Unarchives a project: a revision of its own (archived_at null); CONFLICT (NOT_ARCHIVED) when it is not archived. */
  async unarchive(projectId: number, actor: Actor = SYSTEM_ACTOR, access: ProjectAccess = UNRESTRICTED) {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const outcome = await this.change(project_id, access, {
      operation: "unarchiveProject",
      actor,
      set: { archived_at: null, archived: false },
      when: { archived_at: { $ne: null } },
      explain: (current) => {
        this.guard.one(current);
        throw conflict(`project ${project_id} is not archived`, "projectId", FieldErrorReason.NOT_ARCHIVED);
      },
    });
    return this.guard.one(result(project_id, outcome));
  }

  /**
   * Deletes a project (admin), under the caller's change rule: it is gone from every read, its name is free again,
   * and the change log's last entry for it (deleteProject) tells subscribers. NOT_FOUND when there is none.
   */
  async delete(
    projectId: number,
    actor: Actor = SYSTEM_ACTOR,
    access: ProjectAccess = UNRESTRICTED,
  ): Promise<DeletedRecord> {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const outcome = await this.projects.delete(project_id, actor, await this.changeRule(project_id, access));
    if (outcome.status === "missing") throw missing(project_id);
    if (outcome.status === "refused") {
      throw meets(outcome.project, access.read) ? outsideChangeRule(project_id) : missing(project_id);
    }
    return { id: globalIdOf("Project", project_id) };
  }

  /**
   * A project by id; with options.fields, only those fields are read and checked, and the record holds just them.
   * Null too for a project outside options.access's read rule.
   */
  async get(
    projectId: number,
    options: { fields?: readonly ProjectField[]; access?: ProjectAccess } = {},
  ): Promise<ProjectRecord | null> {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const scope = (options.access ?? UNRESTRICTED).read;
    if (!scope) return null;
    return this.guard.oneOrNull(await this.projects.get(project_id, options.fields, scope), options.fields);
  }

  /**
   * A project by id with its teacher, read in one command (the teacher joined by $lookup): what get() and the
   * teacher's findByIds would give. `teacher` is undefined when the project has none (or there is no project).
   */
  async getWithTeacher(
    projectId: number,
    options: { fields?: readonly ProjectField[]; access?: ProjectAccess } = {},
  ): Promise<{ project: ProjectRecord | null; teacher?: RelatedTeacher | null }> {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const scope = (options.access ?? UNRESTRICTED).read;
    if (!scope) return { project: null };
    const { fields, join } = this.withTeachers(options.fields);
    const read = await this.projects.getJoined(project_id, fields, join, scope);
    const project = this.guard.oneOrNull(read.project, fields);
    if (project?.teacher_id == null) return { project };
    return { project, teacher: this.teachers.join.teacher(read.joined) };
  }

  /**
   * A page of projects; `total` is counted only when options.total (default true) asks for it. With
   * options.fields, only those fields are read and checked (the fields a query asks for): each item holds just them.
   * Items and total are those options.access's read rule lets the caller read. With options.teachers, the items'
   * teachers are read in the page's command (a $lookup) and come in `teachers`.
   */
  async list(
    filter: ProjectFilter = {},
    page?: PageRequest,
    options: ListOptions & { total?: boolean; fields?: readonly ProjectField[]; teachers?: boolean } = {},
  ): Promise<Page<ProjectRecord> & WithTeachers> {
    const bounds = pageBounds(page);
    const { query, order } = listQueryOf(filter, options);
    const total = options.total ?? true;
    if (!query) return toPage([], bounds, false, total ? 0 : undefined);
    const { fields, join } = options.teachers ? this.withTeachers(options.fields) : { fields: options.fields };
    const sort = sortOf(PROJECT_ORDERS, order);
    const read = await this.projects.list(query, bounds, { total, fields, join, sort });
    const listed = toPage(this.guard.keep(read.items, fields), bounds, read.has_more, read.total);
    return read.joined ? { ...listed, teachers: this.joinedTeachers(read.items, read.joined) } : listed;
  }

  /**
   * A page of the projects matching the filter by cursor (first/after forward, last/before backward), ordered by
   * project_id: a keyset page (shared/keyset-pagination.ts), as cheap deep in the list as at its start. totalCount is
   * counted only when options.total asks for it. With options.fields (project_id among them: the cursors' key), only
   * those fields are read and checked, and with options.teachers the nodes' teachers come in `teachers`, as for list().
   */
  async pageByKeyset(
    filter: ProjectFilter = {},
    request: ConnectionRequest = {},
    options: ListOptions & { total?: boolean; fields?: readonly ProjectField[]; teachers?: boolean } = {},
  ): Promise<Connection<ProjectRecord> & WithTeachers> {
    const { query, order } = listQueryOf(filter, options);
    const window = orderedWindow(PROJECT_ORDERS, order, request);
    const cursor = (project: ProjectRecord) => orderedCursorOf(PROJECT_ORDERS, order, project);
    if (!query) return connectionOf(cursor, window, NOTHING, options.total ? 0 : undefined);
    const reading = options.teachers ? this.withTeachers(options.fields) : { fields: options.fields, join: undefined };
    const fields = withOrderFields(reading.fields, order);
    const { total, joined, ...read } = await this.projects.pageByKeyset(
      query,
      window,
      storedOrderOf(PROJECT_ORDERS, order),
      {
        total: options.total ?? false,
        fields,
        join: reading.join,
      },
    );
    const connection = connectionOf(cursor, window, this.kept(read, fields), total);
    return joined ? { ...connection, teachers: this.joinedTeachers(read.items, joined) } : connection;
  }

  /**
   * Batch read for loaders: the same cursor page of each teacher's projects (Teacher.projectsConnection), in key
   * order; totalCount counted only when options.total asks for it.
   */
  async pageByTeacherIds(
    teacherIds: readonly number[],
    request: ConnectionRequest = {},
    options: ListOptions & { total?: boolean } = {},
  ): Promise<Connection<ProjectRecord>[]> {
    const { query, order } = listQueryOf({}, options);
    const window = orderedWindow(PROJECT_ORDERS, order, request);
    const cursor = (project: ProjectRecord) => orderedCursorOf(PROJECT_ORDERS, order, project);
    if (!query) return teacherIds.map(() => connectionOf(cursor, window, NOTHING, options.total ? 0 : undefined));
    const pages = await this.projects.pageByTeacherIds(
      teacherIds,
      window,
      storedOrderOf(PROJECT_ORDERS, order),
      { total: options.total ?? false },
      query,
    );
    return pages.map(({ total, ...read }) => connectionOf(cursor, window, this.kept(read), total));
  }

  /**
   * How many projects the where and the filter match among those the caller may read, and with `groupBy` how many
   * hold each value of that field: the MAX_GROUPS largest groups, largest first, then by value; `hasMoreGroups` when
   * more exist. A caller whose rules match nothing gets zeros without a database read.
   */
  async counts(
    filter: ProjectFilter = {},
    options: ListOptions & { groupBy?: ProjectGroupField | null } = {},
  ): Promise<{ total: number; groups: { key: string | null; count: number }[]; hasMoreGroups: boolean }> {
    const { query } = listQueryOf(filter, options);
    const groupBy = options.groupBy ? PROJECT_GROUP_FIELDS[options.groupBy] : undefined;
    if (options.groupBy && !groupBy) {
      throw badRequest(
        `groupBy must be one of ${Object.keys(PROJECT_GROUP_FIELDS).join(", ")}`,
        "groupBy",
        FieldErrorReason.UNKNOWN_FIELD,
      );
    }
    if (!query) return { total: 0, groups: [], hasMoreGroups: false };
    const read = await this.projects.counts(query, groupBy, MAX_GROUPS + 1);
    return {
      total: read.total,
      groups: read.groups
        .slice(0, MAX_GROUPS)
        .map(({ value, count }) => ({ key: value === null ? null : String(value), count })),
      hasMoreGroups: read.groups.length > MAX_GROUPS,
    };
  }

  /**
   * Batch read for loaders (Query.node, Query.nodes, _entities): results in key order, null for missing ids and for
   * projects outside options.access's read rule.
   */
  async findByIds(ids: readonly number[], options: { access?: ProjectAccess } = {}): Promise<(ProjectRecord | null)[]> {
    const scope = (options.access ?? UNRESTRICTED).read;
    if (!scope) return ids.map(() => null);
    // A project the API cannot answer reads as absent (reported), as in lists.
    return (await this.projects.findByIds(ids, scope)).map((p) => (p && this.guard.answerable(p) ? p : null));
  }

  /**
   * What a read of projects with their teachers reads: `fields` with teacher_id (all fields when undefined), and the
   * stage that joins each project's teacher (JOINED_TEACHER).
   */
  private withTeachers(fields: readonly ProjectField[] | undefined) {
    return {
      fields: fields && !fields.includes("teacher_id") ? [...fields, "teacher_id" as const] : fields,
      join: this.teachers.join.stage("teacher_id", JOINED_TEACHER),
    };
  }

  /**
   * The teachers a page's read joined (JOINED_TEACHER, `joined` item by item), by teacher_id: what the teacher's
   * findByIds gives for each id (null for none, or one the API cannot answer).
   */
  private joinedTeachers(
    items: readonly ProjectRecord[],
    joined: readonly unknown[],
  ): Map<number, RelatedTeacher | null> {
    const teachers = new Map<number, RelatedTeacher | null>();
    items.forEach((item, i) => {
      if (item.teacher_id != null && !teachers.has(item.teacher_id))
        teachers.set(item.teacher_id, this.teachers.join.teacher(joined[i]));
    });
    return teachers;
  }

  private kept(read: KeysetRead<ProjectRecord>, fields?: readonly ProjectField[]): KeysetRead<ProjectRecord> {
    return { items: this.guard.keep(read.items, fields), more: read.more };
  }

  /** The changes of a project, newest first; total is its revision (revisions are numbered from 1). */
  async history(
    project: Pick<ProjectRecord, "project_id" | "revision">,
    page?: PageRequest,
  ): Promise<Page<ProjectChangeRecord>> {
    const bounds = pageBounds(page);
    const items = await this.projects.history(project.project_id, project.revision, bounds);
    return toPage(items, bounds, bounds.offset + bounds.limit < project.revision, project.revision);
  }

  /**
   * Batch read for loaders: one page (offset/limit, checked like every page) of each teacher's projects, in key
   * order, ordered by project_id.
   */
  async findByTeacherIds(
    teacherIds: readonly number[],
    page?: PageRequest,
    options: ListOptions & { fields?: readonly ProjectField[] } = {},
  ): Promise<ProjectRecord[][]> {
    const bounds = pageBounds(page);
    const { query, order } = listQueryOf({}, options);
    if (!query) return teacherIds.map(() => []);
    const sort = sortOf(PROJECT_ORDERS, order);
    const lists = await this.projects.findByTeacherIds(teacherIds, bounds, options.fields, query, sort);
    return lists.map((projects) => this.guard.keep(projects, options.fields));
  }

  /**
   * The caller's change rule, for a change of the project; a caller whose rules let it change nothing is refused as
   * the project would answer it: NOT_FOUND when it may not read it either, else FORBIDDEN.
   */
  private async changeRule(project_id: number, access: ProjectAccess): Promise<ProjectQuery> {
    if (access.change) return access.change;
    if (!(await this.readable(project_id, access))) throw missing(project_id);
    throw outsideChangeRule(project_id);
  }

  /** Whether the caller may read the project (it exists and its read rule holds). */
  private async readable(project_id: number, access: ProjectAccess): Promise<boolean> {
    return access.read !== null && (await this.projects.get(project_id, undefined, access.read)) !== null;
  }

  /**
   * A change under the caller's row rules: what it may change is part of the conditional update, so the rule holds
   * at the moment of the change (a concurrent change cannot make a stale check pass). When the update matches
   * nothing, the project as read then says why: outside the read rule it does not exist for the caller (NOT_FOUND),
   * outside the change rule it is FORBIDDEN, else the operation's own explanation.
   */
  private async change(project_id: number, access: ProjectAccess, request: Omit<ChangeRequest, "allowed">) {
    const allowed = await this.changeRule(project_id, access);
    // Only unarchiving changes an archived project.
    const unarchiving = request.operation === "unarchiveProject";
    return this.projects.change(project_id, {
      ...request,
      when: unarchiving ? request.when : { ...request.when, archived_at: null },
      allowed,
      explain: (current) => {
        if (!meets(current, access.read)) throw missing(project_id);
        if (!meets(current, allowed)) throw outsideChangeRule(project_id);
        if (!unarchiving && current.archived_at != null) throw archived(project_id);
        return request.explain(current);
      },
    });
  }
}

/** An empty keyset read: the page of a caller whose rules match no project. */
const NOTHING: KeysetRead<ProjectRecord> = { items: [], more: false };

/** What every list takes beside its page: the where, the order and the caller's row rules. */
export interface ListOptions {
  where?: WhereInput | null;
  orderBy?: OrderInput | null;
  access?: ProjectAccess;
}

/**
 * A list's filter, where and row rules as one stored filter (null when the rules match nothing: no read is needed),
 * and its checked order. The filter and the where are checked first, whatever the rules, so an error never depends on
 * what the caller may read.
 */
function listQueryOf(
  filter: ProjectFilter,
  options: ListOptions,
): { query: StoredFilter | null; order: ListOrder<ProjectRecord> } {
  const equal = queryOf(filter);
  const { where, archived } = archivedOf(options.where);
  const conditions = allOf(whereFilter(PROJECT_WHERE_FIELDS, where), archived);
  const order = listOrder(PROJECT_ORDERS, options.orderBy);
  const readable = readableOf(equal, options.access);
  return { query: readable && allOf(readable as StoredFilter, conditions), order };
}

/**
 * A list's where without its top-level `archived`, and the condition that takes its place: archived projects only
 * when it is true, else those not archived (absent or false), so an archived project leaves every list and count
 * unless the where asks for it. `archived` inside and/or/not is no field of a comparison (BAD_REQUEST, UNKNOWN_FIELD).
 */
function archivedOf(where: WhereInput | null | undefined): {
  where: WhereInput | null | undefined;
  archived: StoredFilter;
} {
  const { archived, ...rest } = (where ?? {}) as { archived?: boolean | null };
  return {
    where: where == null ? where : rest,
    archived: { archived: archived === true },
  };
}

/** The fields a keyset page reads: `fields` with those its order's cursors are made of (all when undefined). */
function withOrderFields(
  fields: readonly ProjectField[] | undefined,
  order: ListOrder<ProjectRecord>,
): readonly ProjectField[] | undefined {
  if (!fields) return fields;
  const missingFields = ["project_id" as const, ...order.field.reads].filter((f) => !fields.includes(f));
  return missingFields.length > 0 ? [...fields, ...missingFields] : fields;
}

/** The query narrowed to what the caller may read; null when nothing can match (no database read is needed). */
function readableOf(query: ProjectQuery, access: ProjectAccess = UNRESTRICTED): ProjectQuery | null {
  return access.read && both(query, access.read);
}

function missing(project_id: number) {
  return notFound(`project ${project_id} does not exist`, "projectId");
}

function archived(project_id: number) {
  return conflict(
    `project ${project_id} is archived: unarchive it (unarchiveProject) before changing it`,
    "projectId",
    FieldErrorReason.ARCHIVED,
  );
}

function outsideChangeRule(project_id: number) {
  return forbidden(
    `project ${project_id} is outside what your role may change (ACCESS_POLICY's change rule)`,
    "projectId",
  );
}

/** Creating the project must leave it readable by its creator: else FORBIDDEN, on the input field the rule refuses. */
function assertReadable(project: Partial<Record<RuleField, unknown>>, access: ProjectAccess): void {
  if (meets(project, access.read)) return;
  const refused =
    access.read && (Object.keys(access.read) as RuleField[]).find((f) => !meets(project, { [f]: access.read![f] }));
  const field = refused === "project_status" ? "project_status" : "company_id";
  throw forbidden(
    `you could not read a project with this ${refused ?? field} (ACCESS_POLICY's read rule for your role), so you may not create it`,
    field,
  );
}

/** The stored fields a list's filter narrows on (checked: BAD_REQUEST naming each invalid field). */
function queryOf(filter: ProjectFilter): ProjectQuery {
  const valid = validate(ProjectFilterSchema, filter);
  const query: ProjectQuery = {};
  if (valid.company_id != null) query.company_id = valid.company_id;
  if (valid.teacher_id != null) query.teacher_id = valid.teacher_id;
  if (valid.project_status != null) query.project_status = valid.project_status;
  return query;
}

/** The filter of a change that names an expected revision. */
function revisionIs(expected: number | null | undefined): { revision?: number } {
  return expected == null ? {} : { revision: expected };
}

function checkRevision(current: ProjectRecord, expected: number | null | undefined): void {
  if (expected != null && current.revision !== expected) {
    throw conflict(
      `project ${current.project_id} is at revision ${current.revision}, not expected_revision ${expected}; reload it and try again`,
      "expected_revision",
      FieldErrorReason.STALE_REVISION,
    );
  }
}

function result(project_id: number, outcome: ChangeOutcome): ProjectRecord {
  if (outcome.status === "missing") throw missing(project_id);
  return outcome.project;
}
