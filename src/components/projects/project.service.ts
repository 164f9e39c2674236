// Project use cases: create, assign a teacher, change status, read and list.
// Uniqueness (ids, company + name) is decided by unique indexes; every change is one atomic single-document update.
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { conflict, notFound } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { nameKey, validate } from "../../shared/validation";
import type { TeacherService } from "../teachers";
import type { ProjectDoc, ProjectModel } from "./project.model";
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
import { assertTransition, initialStatusRule, type StatusWorkflow } from "./status-workflow";

export type { CreateProjectValues, ProjectFilter } from "./project.schemas";

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
    const valid = validate(CreateProjectSchema, input, initialStatusRule(this.workflow));
    const { project_name } = valid;
    const values = { ...valid, name_key: nameKey(project_name), teacher_id: null };
    const doc = await this.ids.insertWithNewId(
      "projects",
      this.projects,
      (project_id) => this.projects.create({ project_id, ...values }),
      async () =>
        (await this.projects.exists({ company_id: values.company_id, name_key: values.name_key }))
          ? conflict(
              `project_name "${project_name}" is taken: company_id ${values.company_id} already has a project of that name (ignoring case and surrounding spaces)`,
              "project_name",
            )
          : undefined,
    );
    return toProjectRecord(doc.toObject());
  }

  async assignTeacher(projectId: number, input: AssignTeacherValues): Promise<ProjectRecord> {
    const { projectId: project_id, new_teacher_id: teacher_id } = validate(AssignTeacherRequest, {
      projectId,
      ...input,
    });
    const [project, teacherExists] = await Promise.all([
      this.projects.findOne({ _id: idKey(project_id) }, { teacher_id: 1 }).lean(),
      this.teachers.exists(teacher_id),
    ]);
    if (!project) throw notFound(`project ${project_id} does not exist`, "projectId");
    if (!teacherExists) throw notFound(`teacher ${teacher_id} (new_teacher_id) does not exist`, "new_teacher_id");
    // The condition makes "already assigned" part of the same atomic update.
    const updated = await this.projects
      .findOneAndUpdate(
        { _id: idKey(project_id), teacher_id: { $ne: teacher_id } },
        { $set: { teacher_id } },
        { returnDocument: "after" },
      )
      .lean();
    if (updated) return toProjectRecord(updated);
    if (!(await this.projects.exists({ _id: idKey(project_id) }))) throw notFound(`project ${project_id} does not exist`, "projectId");
    throw conflict(`teacher ${teacher_id} is already assigned to project ${project_id}`, "new_teacher_id");
  }

  async updateStatus(projectId: number, input: UpdateProjectStatusValues): Promise<ProjectRecord> {
    const { projectId: project_id, project_status: next } = validate(UpdateProjectStatusRequest, {
      projectId,
      ...input,
    });
    for (let attempt = 0; ; attempt++) {
      const current = await this.projects.findOne({ _id: idKey(project_id) }, { project_status: 1 }).lean();
      if (!current) throw notFound(`project ${project_id} does not exist`, "projectId");
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

  async get(projectId: number): Promise<ProjectRecord | null> {
    const { projectId: project_id } = validate(ProjectIdArg, { projectId });
    const doc = await this.projects.findOne({ _id: idKey(project_id) }).lean();
    return doc ? toProjectRecord(doc) : null;
  }

  async list(filter: ProjectFilter = {}, page?: PageRequest): Promise<Page<ProjectRecord>> {
    const bounds = pageBounds(page);
    const valid = validate(ProjectFilterSchema, filter);
    const query: Record<string, unknown> = {};
    if (valid.company_id != null) query.company_id = valid.company_id;
    if (valid.teacher_id != null) query.teacher_id = valid.teacher_id;
    if (valid.project_status != null) query.project_status = valid.project_status;
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
