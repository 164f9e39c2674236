// The domain services of one app instance; stateless, shared by GraphQL and REST.
import { ProjectService, type StatusWorkflow } from "./components/projects";
import { ProjectChangeLog, ProjectRepository } from "./components/projects/persistence";
import { StudentService } from "./components/students";
import { StudentRepository } from "./components/students/persistence";
import { TeacherService } from "./components/teachers";
import { TeacherRepository } from "./components/teachers/persistence";
import type { Database } from "./db/database";

export interface Services {
  projects: ProjectService;
  teachers: TeacherService;
  students: StudentService;
}

export function createServices(db: Database, workflow: StatusWorkflow | undefined): Services {
  const teachers = new TeacherService(new TeacherRepository(db.models.Teacher, db.ids));
  return {
    teachers,
    students: new StudentService(new StudentRepository(db.models.Student, db.ids)),
    projects: new ProjectService(
      new ProjectRepository(db.models.Project, new ProjectChangeLog(db.models.ProjectChange, db.ids), db.ids),
      teachers,
      workflow,
    ),
  };
}
