// Shared data makers of the list tests: rows inserted straight through the models (fast, explicit ids).
import type { Database } from "../../src/persistence";
import { nameKey } from "../../src/shared/validation";
import type { ProjectDoc } from "../../src/components/projects/persistence";

export { ADMIN, STUDENT, TEACHER } from "../helpers/fixtures";

export type ProjectSpec = Pick<ProjectDoc, "project_id"> & Partial<Omit<ProjectDoc, "project_id">>;

/** Inserts projects with plausible defaults: company 1, status "proposed", no teacher. */
export async function insertProjects(db: Database, specs: ProjectSpec[]): Promise<void> {
  await db.models.Project.insertMany(
    specs.map((s) => {
      const project_name = s.project_name ?? `Project ${s.project_id}`;
      return {
        project_name,
        name_key: nameKey(project_name),
        project_desc: "A project made by a test",
        company_id: 1,
        project_status: "proposed",
        project_url: null,
        start_date: "2025-01-01",
        end_date: "2025-06-30",
        teacher_id: null,
        ...s,
      };
    }),
  );
}

export async function insertTeachers(db: Database, ids: number[]): Promise<void> {
  await db.models.Teacher.insertMany(ids.map((teacher_id) => ({ teacher_id, teacher_name: `Teacher ${teacher_id}` })));
}

export async function insertStudents(db: Database, specs: { student_id: number; class_code: string }[]): Promise<void> {
  await db.models.Student.insertMany(
    specs.map((s) => ({ ...s, student_name: `Student ${s.student_id}`, email: `student${s.student_id}@school.test` })),
  );
}

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
