// Project use cases: create, assign a teacher, change status, read, list and history. The rules live here; the
// repository (project.repository.ts) stores, claims revisions and returns plain records.
import { SYSTEM_ACTOR, type Actor } from "../../auth/actor";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { calendarDate, LIMITS, nameKey, optionalHttpUrl, positiveId, text } from "../../shared/validation";
import type { TeacherService } from "../teachers";
import type { ProjectChangeSet } from "./project.model";
import type {
  ChangeOutcome,
  ProjectChangeRecord,
  ProjectQuery,
  ProjectRecord,
  ProjectRepository,
} from "./project.repository";
import { assertInitialStatus, assertTransition, type StatusWorkflow } from "./status-workflow";

export type { ProjectChangeRecord, ProjectRecord } from "./project.repository";

export interface CreateProjectValues {
  project_name: unknown;
  project_desc: unknown;
  company_id: unknown;
  project_status: unknown;
  project_url?: unknown;
  start_date: unknown;
  end_date: unknown;
}

export interface ProjectFilter {
  company_id?: number | null;
  project_status?: string | null;
  teacher_id?: number | null;
}

/** Optimistic concurrency: when given, the change applies only to this revision of the project. */
export interface ExpectedRevision {
  expected_revision?: unknown;
}

export class ProjectService {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly teachers: TeacherService,
    private readonly workflow: StatusWorkflow | undefined,
  ) {}

  /** The statuses the workflow allows, in its order; empty when any status is allowed. */
  statuses(): string[] {
    return this.workflow ? [...this.workflow.statuses] : [];
  }

  async create(input: CreateProjectValues, actor: Actor = SYSTEM_ACTOR): Promise<ProjectRecord> {
    const project_name = text("project_name", input.project_name, LIMITS.name);
    const values = {
      project_name,
      name_key: nameKey(project_name),
      project_desc: text("project_desc", input.project_desc, LIMITS.project_desc),
      company_id: positiveId("company_id", input.company_id),
      project_status: text("project_status", input.project_status, LIMITS.project_status),
      project_url: optionalHttpUrl("project_url", input.project_url),
      start_date: calendarDate("start_date", input.start_date),
      end_date: calendarDate("end_date", input.end_date),
    };
    if (values.end_date < values.start_date) {
      throw badRequest(`end_date ${values.end_date} is before start_date ${values.start_date}`);
    }
    assertInitialStatus(this.workflow, values.project_status);
    return this.projects.create(values, actor, async () =>
      (await this.projects.nameTaken(values.company_id, values.name_key))
        ? conflict(
            `project_name "${project_name}" is taken: company_id ${values.company_id} already has a project of that name (ignoring case and surrounding spaces)`,
          )
        : undefined,
    );
  }

  async assignTeacher(
    projectId: unknown,
    input: { new_teacher_id: unknown } & ExpectedRevision,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<ProjectRecord> {
    const project_id = positiveId("projectId", projectId);
    const teacher_id = positiveId("new_teacher_id", input.new_teacher_id);
    const expected = expectedRevision(input);
    if (!(await this.teachers.exists(teacher_id))) {
      // A missing project is reported first, as before: look it up only on this error path.
      if (!(await this.projects.get(project_id))) throw notFound(`project ${project_id} does not exist`);
      throw notFound(`teacher ${teacher_id} (new_teacher_id) does not exist`);
    }
    const outcome = await this.projects.change(project_id, "assignTeacher", actor, (current) => {
      checkRevision(current, expected);
      if (current.teacher_id === teacher_id) {
        throw conflict(`teacher ${teacher_id} is already assigned to project ${project_id}`);
      }
      return { teacher_id };
    });
    return result(project_id, outcome);
  }

  async updateStatus(
    projectId: unknown,
    input: { project_status: unknown } & ExpectedRevision,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<ProjectRecord> {
    const project_id = positiveId("projectId", projectId);
    const next = text("project_status", input.project_status, LIMITS.project_status);
    const expected = expectedRevision(input);
    const outcome = await this.projects.change(project_id, "updateProjectStatus", actor, (current): ProjectChangeSet => {
      checkRevision(current, expected);
      // Checked against the status this change replaces: a concurrent change that commits first makes us re-check.
      assertTransition(this.workflow, current.project_status, next);
      return current.project_status === next ? {} : { project_status: next };
    });
    return result(project_id, outcome);
  }

  async get(projectId: unknown): Promise<ProjectRecord | null> {
    return this.projects.get(positiveId("projectId", projectId));
  }

  /** A page of projects; `total` is counted only when options.total (default true) asks for it. */
  async list(filter: ProjectFilter = {}, page?: PageRequest, options: { total?: boolean } = {}): Promise<Page<ProjectRecord>> {
    const bounds = pageBounds(page);
    const query: ProjectQuery = {};
    if (filter.company_id != null) query.company_id = positiveId("company_id", filter.company_id);
    if (filter.teacher_id != null) query.teacher_id = positiveId("teacher_id", filter.teacher_id);
    if (filter.project_status != null) {
      query.project_status = text("project_status", filter.project_status, LIMITS.project_status);
    }
    const { items, has_more, total } = await this.projects.list(query, bounds, { total: options.total ?? true });
    return toPage(items, bounds, has_more, total);
  }

  /** The changes of a project, newest first; total is its revision (revisions are numbered from 1). */
  async history(project: Pick<ProjectRecord, "project_id" | "revision">, page?: PageRequest): Promise<Page<ProjectChangeRecord>> {
    const bounds = pageBounds(page);
    const items = await this.projects.history(project.project_id, project.revision, bounds);
    return toPage(items, bounds, bounds.offset + bounds.limit < project.revision, project.revision);
  }

  /** Batch read for loaders: every project of each teacher, in key order, ordered by project_id. */
  findByTeacherIds(teacherIds: readonly number[]): Promise<ProjectRecord[][]> {
    return this.projects.findByTeacherIds(teacherIds);
  }
}

function expectedRevision(input: ExpectedRevision): number | undefined {
  return input.expected_revision === undefined || input.expected_revision === null
    ? undefined
    : positiveId("expected_revision", input.expected_revision);
}

function checkRevision(current: ProjectRecord, expected: number | undefined): void {
  if (expected !== undefined && current.revision !== expected) {
    throw conflict(
      `project ${current.project_id} is at revision ${current.revision}, not expected_revision ${expected}; reload it and try again`,
    );
  }
}

function result(project_id: number, outcome: ChangeOutcome): ProjectRecord {
  if (outcome.status === "missing") throw notFound(`project ${project_id} does not exist`);
  if (outcome.status === "contended") throw conflict(`project ${project_id} changed concurrently; try again`);
  return outcome.project;
}
