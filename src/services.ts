// The domain services of one app instance; stateless, shared by GraphQL and REST.
import { ProjectChangeFeed, ProjectService, type StatusWorkflow } from "./components/projects";
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
  /** Live updates of projects: this instance's reader of the change log (stop it when the app closes). */
  projectChanges: ProjectChangeFeed;
}

export interface ServiceOptions {
  /** SUBSCRIPTION_POLL_MS (default 250). */
  subscriptionPollMs?: number;
  /** Told when the change feed cannot read the log (it retries at its next tick). */
  onFeedError?: (err: unknown) => void;
}

export function createServices(
  db: Database,
  workflow: StatusWorkflow | undefined,
  options: ServiceOptions = {},
): Services {
  const teachers = new TeacherService(new TeacherRepository(db.models.Teacher, db.ids));
  const changeLog = new ProjectChangeLog(db.models.ProjectChange, db.ids);
  const projects = new ProjectService(new ProjectRepository(db.models.Project, changeLog, db.ids), teachers, workflow);
  return {
    teachers,
    students: new StudentService(new StudentRepository(db.models.Student, db.ids)),
    projects,
    projectChanges: new ProjectChangeFeed(changeLog, projects, {
      pollMs: options.subscriptionPollMs ?? 250,
      onError: options.onFeedError,
    }),
  };
}
