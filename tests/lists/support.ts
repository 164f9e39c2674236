// Shared data makers of the list tests: rows inserted straight through the models (fast, explicit ids).
import type { Database } from "../../src/db/database";
import type { ProjectDoc } from "../../src/components/projects/persistence";

export const ADMIN = { "x-user-role": "admin" };
export const STUDENT = { "x-user-role": "student" };
/** Students' personal data is for teachers and admins (contract: "Who may read what"). */
export const TEACHER = { "x-user-role": "teacher" };

export type ProjectSpec = Pick<ProjectDoc, "project_id"> & Partial<Omit<ProjectDoc, "project_id">>;

/** Inserts projects with plausible defaults: company 1, status "proposed", no teacher. */
export async function insertProjects(db: Database, specs: ProjectSpec[]): Promise<void> {
  await db.models.Project.insertMany(
    specs.map((s) => {
      const project_name = s.project_name ?? `Project ${s.project_id}`;
      return {
        project_name,
        name_key: project_name.trim().toLowerCase(),
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
