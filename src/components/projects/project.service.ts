// Project use cases: create, assign a teacher, change status, read and list.
// Uniqueness (ids, company + name) is decided by unique indexes; every change is one atomic single-document update.
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { calendarDate, LIMITS, nameKey, optionalHttpUrl, positiveId, text } from "../../shared/validation";
import type { TeacherService } from "../teachers";
import type { ProjectDoc, ProjectModel } from "./project.model";
import { assertInitialStatus, assertTransition, type StatusWorkflow } from "./status-workflow";

export interface ProjectRecord {
  project_id: number;
  project_name: string;
  project_desc: string;
  company_id: number;
  project_status: string;
  project_url: string | null;
  start_date: string;
  end_date: string;
  teacher_id: number | null;
  created_at: string;
  updated_at: string;
}

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

export function toProjectRecord(doc: ProjectDoc): ProjectRecord {
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
    created_at: new Date(doc.created_at).toISOString(),
    updated_at: new Date(doc.updated_at).toISOString(),
  };
}

const MAX_STATUS_RACE_RETRIES = 5;

export class ProjectService {
  constructor(
    private readonly projects: ProjectModel,
    private readonly ids: IdAllocator,
    private readonly teachers: TeacherService,
    private readonly workflow: StatusWorkflow | undefined,
  ) {}

  /** The statuses the workflow allows, in its order; empty when any status is allowed. */
  statuses(): string[] {
    return this.workflow ? [...this.workflow.statuses] : [];
  }

  async create(input: CreateProjectValues): Promise<ProjectRecord> {
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
      teacher_id: null,
    };
    if (values.end_date < values.start_date) {
      throw badRequest(`end_date ${values.end_date} is before start_date ${values.start_date}`);
    }
    assertInitialStatus(this.workflow, values.project_status);
    const doc = await this.ids.insertWithNewId(
      "projects",
      this.projects,
      (project_id) => this.projects.create({ project_id, ...values }),
      async () =>
        (await this.projects.exists({ company_id: values.company_id, name_key: values.name_key }))
          ? conflict(
              `project_name "${project_name}" is taken: company_id ${values.company_id} already has a project of that name (ignoring case and surrounding spaces)`,
            )
          : undefined,
    );
    return toProjectRecord(doc.toObject());
  }

  async assignTeacher(projectId: unknown, input: { new_teacher_id: unknown }): Promise<ProjectRecord> {
    const project_id = positiveId("projectId", projectId);
    const teacher_id = positiveId("new_teacher_id", input.new_teacher_id);
    const [project, teacherExists] = await Promise.all([
      this.projects.findOne({ _id: idKey(project_id) }, { teacher_id: 1 }).lean(),
      this.teachers.exists(teacher_id),
    ]);
    if (!project) throw notFound(`project ${project_id} does not exist`);
    if (!teacherExists) throw notFound(`teacher ${teacher_id} (new_teacher_id) does not exist`);
    // The condition makes "already assigned" part of the same atomic update.
    const updated = await this.projects
      .findOneAndUpdate(
        { _id: idKey(project_id), teacher_id: { $ne: teacher_id } },
        { $set: { teacher_id } },
        { returnDocument: "after" },
      )
      .lean();
    if (updated) return toProjectRecord(updated);
    if (!(await this.projects.exists({ _id: idKey(project_id) }))) throw notFound(`project ${project_id} does not exist`);
    throw conflict(`teacher ${teacher_id} is already assigned to project ${project_id}`);
  }

  async updateStatus(projectId: unknown, input: { project_status: unknown }): Promise<ProjectRecord> {
    const project_id = positiveId("projectId", projectId);
    const next = text("project_status", input.project_status, LIMITS.project_status);
    for (let attempt = 0; ; attempt++) {
      const current = await this.projects.findOne({ _id: idKey(project_id) }, { project_status: 1 }).lean();
      if (!current) throw notFound(`project ${project_id} does not exist`);
      assertTransition(this.workflow, current.project_status, next);
      // Compare-and-set on the status the transition was checked against; retry if it changed meanwhile.
      const updated = await this.projects
        .findOneAndUpdate(
          { _id: idKey(project_id), project_status: current.project_status },
          { $set: { project_status: next } },
          { returnDocument: "after" },
        )
        .lean();
      if (updated) return toProjectRecord(updated);
      if (attempt >= MAX_STATUS_RACE_RETRIES) {
        throw conflict(`project ${project_id} changed status concurrently; try again`);
      }
    }
  }

  async get(projectId: unknown): Promise<ProjectRecord | null> {
    const project_id = positiveId("projectId", projectId);
    const doc = await this.projects.findOne({ _id: idKey(project_id) }).lean();
    return doc ? toProjectRecord(doc) : null;
  }

  async list(filter: ProjectFilter = {}, page?: PageRequest): Promise<Page<ProjectRecord>> {
    const bounds = pageBounds(page);
    const query: Record<string, unknown> = {};
    if (filter.company_id != null) query.company_id = positiveId("company_id", filter.company_id);
    if (filter.teacher_id != null) query.teacher_id = positiveId("teacher_id", filter.teacher_id);
    if (filter.project_status != null) {
      query.project_status = text("project_status", filter.project_status, LIMITS.project_status);
    }
    const [docs, total] = await Promise.all([
      this.projects.find(query).sort({ project_id: 1 }).skip(bounds.offset).limit(bounds.limit).lean(),
      this.projects.countDocuments(query),
    ]);
    return toPage(docs.map(toProjectRecord), total, bounds);
  }

  /**
   * Batch read for loaders: one page (offset/limit, checked like every page) of each teacher's projects, in key
   * order, ordered by project_id. One query reads every project of these teachers and the pages are cut here:
   * neither MongoDB's find nor FerretDB's aggregation can cut a page per teacher. With a single teacher the page
   * is cut by the query itself.
   */
  async findByTeacherIds(teacherIds: readonly number[], page?: PageRequest): Promise<ProjectRecord[][]> {
    const { offset, limit } = pageBounds(page);
    const ids = [...new Set(teacherIds)];
    const query = this.projects.find({ teacher_id: { $in: ids } }).sort({ project_id: 1 });
    const single = ids.length === 1;
    if (single) query.skip(offset).limit(limit);
    const docs = await query.lean();
    const byTeacher = new Map<number, ProjectRecord[]>(ids.map((id) => [id, []]));
    for (const doc of docs) byTeacher.get(doc.teacher_id!)?.push(toProjectRecord(doc));
    return teacherIds.map((id) => {
      const all = byTeacher.get(id)!;
      return single ? all : all.slice(offset, offset + limit);
    });
  }
}
