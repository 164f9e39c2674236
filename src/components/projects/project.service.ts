// Project use cases: create, assign a teacher, change status, read, list and history. The rules live here; the
// repository (project.repository.ts) stores, claims revisions and returns plain records.
import { answerRulesOf } from "../../db/answer-rules";
import { SYSTEM_ACTOR, type Actor } from "../../auth/actor";
import { conflict, FieldErrorReason, notFound } from "../../shared/errors";
import {
  keysetWindow,
  toConnection,
  type Connection,
  type ConnectionRequest,
  type KeysetRead,
} from "../../shared/keyset-pagination";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { RecordGuard, type AnswerRules, type ReportUnanswerable } from "../../shared/record-guard";
import { nameKey, validate } from "../../shared/validation";
import type { RelatedTeacher, TeacherService } from "../teachers";
import { PROJECT_FIELDS, PROJECT_STORAGE_ONLY } from "./project.fields";
import type { ProjectChangeRecord, ProjectField, ProjectRecord } from "./project.records";
import type { ChangeOutcome, ProjectQuery, ProjectRepository } from "./project.repository";
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

export class ProjectService {
  private readonly guard: RecordGuard<ProjectRecord>;

  constructor(
    private readonly projects: ProjectRepository,
    private readonly teachers: TeacherService,
    private readonly workflow: StatusWorkflow | undefined,
    report: ReportUnanswerable,
  ) {
    this.guard = new RecordGuard("projects", "project_id", PROJECT_ANSWER_RULES, report);
  }

  /** The statuses the workflow allows, in its order; empty when any status is allowed. */
  statuses(): string[] {
    return this.workflow ? [...this.workflow.statuses] : [];
  }

  async create(input: CreateProjectValues, actor: Actor = SYSTEM_ACTOR): Promise<ProjectRecord> {
    const valid = validate(CreateProjectSchema, input, initialStatusRule(this.workflow));
    const { project_name, company_id } = valid;
    const values = { ...valid, name_key: nameKey(project_name) };
    return this.projects.create(values, actor, async () =>
      (await this.projects.nameTaken(company_id, values.name_key))
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
  ): Promise<ProjectRecord> {
    const {
      projectId: project_id,
      new_teacher_id: teacher_id,
      expected_revision,
    } = validate(AssignTeacherRequest, { projectId, ...input });
    if (!(await this.teachers.exists(teacher_id))) {
      // A missing project is reported first, as before: look it up only on this error path.
      if (!(await this.projects.get(project_id))) throw notFound(`project ${project_id} does not exist`, "projectId");
      throw notFound(`teacher ${teacher_id} (new_teacher_id) does not exist`, "new_teacher_id");
    }
    const outcome = await this.projects.change(project_id, {
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
  ): Promise<ProjectRecord> {
    const {
      projectId: project_id,
      project_status: next,
      expected_revision,
    } = validate(UpdateProjectStatusRequest, { projectId, ...input });
    // The status it replaces is in the update's filter: each success is a transition the workflow allows from it.
    const outcome = await this.projects.change(project_id, {
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

  /** A project by id; with options.fields, only those fields are read and checked, and the record holds just them. */
  async get(projectId: number, options: { fields?: readonly ProjectField[] } = {}): Promise<ProjectRecord | null> {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    return this.guard.oneOrNull(await this.projects.get(project_id, options.fields), options.fields);
  }

  /**
   * A project by id with its teacher, read in one command (the teacher joined by $lookup): what get() and the
   * teacher's findByIds would give. `teacher` is undefined when the project has none (or there is no project).
   */
  async getWithTeacher(
    projectId: number,
    options: { fields?: readonly ProjectField[] } = {},
  ): Promise<{ project: ProjectRecord | null; teacher?: RelatedTeacher | null }> {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const fields =
      options.fields && !options.fields.includes("teacher_id")
        ? [...options.fields, "teacher_id" as const]
        : options.fields;
    const read = await this.projects.getJoined(
      project_id,
      fields,
      this.teachers.join.stage("teacher_id", JOINED_TEACHER),
    );
    const project = this.guard.oneOrNull(read.project, fields);
    if (project?.teacher_id == null) return { project };
    return { project, teacher: this.teachers.join.teacher(read.joined) };
  }

  /**
   * A page of projects; `total` is counted only when options.total (default true) asks for it. With
   * options.fields, only those fields are read and checked (the fields a query asks for): each item holds just them.
   */
  async list(
    filter: ProjectFilter = {},
    page?: PageRequest,
    options: { total?: boolean; fields?: readonly ProjectField[] } = {},
  ): Promise<Page<ProjectRecord>> {
    const bounds = pageBounds(page);
    const query = queryOf(filter);
    const { fields } = options;
    const read = await this.projects.list(query, bounds, { total: options.total ?? true, fields });
    return toPage(this.guard.keep(read.items, fields), bounds, read.has_more, read.total);
  }

  /**
   * A page of the projects matching the filter by cursor (first/after forward, last/before backward), ordered by
   * project_id: a keyset page (shared/keyset-pagination.ts), as cheap deep in the list as at its start. totalCount is
   * counted only when options.total asks for it. With options.fields (project_id among them: the cursors' key), only
   * those fields are read and checked, as for list().
   */
  async pageByKeyset(
    filter: ProjectFilter = {},
    request: ConnectionRequest = {},
    options: { total?: boolean; fields?: readonly ProjectField[] } = {},
  ): Promise<Connection<ProjectRecord>> {
    const window = keysetWindow("Project", request);
    const query = queryOf(filter);
    const { fields } = options;
    const { total, ...read } = await this.projects.pageByKeyset(query, window, {
      total: options.total ?? false,
      fields,
    });
    return toConnection("Project", projectKey, window, this.kept(read, fields), total);
  }

  /**
   * Batch read for loaders: the same cursor page of each teacher's projects (Teacher.projectsConnection), in key
   * order; totalCount counted only when options.total asks for it.
   */
  async pageByTeacherIds(
    teacherIds: readonly number[],
    request: ConnectionRequest = {},
    options: { total?: boolean } = {},
  ): Promise<Connection<ProjectRecord>[]> {
    const window = keysetWindow("Project", request);
    const pages = await this.projects.pageByTeacherIds(teacherIds, window, { total: options.total ?? false });
    return pages.map(({ total, ...read }) => toConnection("Project", projectKey, window, this.kept(read), total));
  }

  /** Batch read for loaders (Query.node, Query.nodes): results in key order, null for missing ids. */
  async findByIds(ids: readonly number[]): Promise<(ProjectRecord | null)[]> {
    // A project the API cannot answer reads as absent (reported), as in lists.
    return (await this.projects.findByIds(ids)).map((p) => (p && this.guard.answerable(p) ? p : null));
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
    options: { fields?: readonly ProjectField[] } = {},
  ): Promise<ProjectRecord[][]> {
    const lists = await this.projects.findByTeacherIds(teacherIds, pageBounds(page), options.fields);
    return lists.map((projects) => this.guard.keep(projects, options.fields));
  }
}

const projectKey = (project: ProjectRecord): number => project.project_id;

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
  if (outcome.status === "missing") throw notFound(`project ${project_id} does not exist`, "projectId");
  return outcome.project;
}
