// The domain services of one app instance; stateless, shared by GraphQL and REST.
import { ProjectService } from "./components/projects";
import { StudentService } from "./components/students";
import { TeacherService } from "./components/teachers";
import { ProjectRepository } from "./components/projects/project.repository";
import type { StatusWorkflow } from "./components/projects/status-workflow";
import { StudentRepository } from "./components/students/student.repository";
import { TeacherRepository } from "./components/teachers/teacher.repository";
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
    projects: new ProjectService(new ProjectRepository(db.models.Project, db.models.ProjectRevision, db.ids), teachers, workflow),
  };
}
