// The domain services of one app instance; stateless, shared by GraphQL and REST.
import { ProjectService } from "./components/projects";
import { StudentService } from "./components/students";
import { TeacherService } from "./components/teachers";
import type { StatusWorkflow } from "./components/projects/status-workflow";
import type { Database } from "./db/database";

export interface Services {
  projects: ProjectService;
  teachers: TeacherService;
  students: StudentService;
}

export function createServices(db: Database, workflow: StatusWorkflow | undefined): Services {
  const teachers = new TeacherService(db.models.Teacher, db.ids);
  return {
    teachers,
    students: new StudentService(db.models.Student, db.ids),
    projects: new ProjectService(db.models.Project, db.ids, teachers, workflow),
  };
}
