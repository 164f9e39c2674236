// The domain services of one app instance; stateless, shared by GraphQL and REST.
import { ProjectService, type StatusWorkflow } from "./components/projects";
import { ProjectRepository } from "./components/projects/persistence";
import { StudentService } from "./components/students";
import { StudentRepository } from "./components/students/persistence";
import { TeacherService } from "./components/teachers";
import { TeacherRepository } from "./components/teachers/persistence";
import type { Database } from "./db/database";
import type { Logger } from "./logger";
import type { UnanswerableRecord } from "./shared/record-guard";

export interface Services {
  projects: ProjectService;
  teachers: TeacherService;
  students: StudentService;
}

/**
 * The services of one app instance. `logger` hears of stored records the API cannot answer (they arrive by imports or
 * direct writes, never through the service): reads leave them out and name collection, id and field here.
 */
export function createServices(db: Database, workflow: StatusWorkflow | undefined, logger: Logger): Services {
  const report = (problem: UnanswerableRecord) =>
    logger.warn(
      problem,
      `stored record cannot be answered: ${problem.collection} ${String(problem.id)} field ${problem.field}; left out of reads (npm run db:check lists such records)`,
    );
  const teachers = new TeacherService(new TeacherRepository(db.models.Teacher, db.ids), report);
  return {
    teachers,
    students: new StudentService(new StudentRepository(db.models.Student, db.ids), report),
    projects: new ProjectService(
      new ProjectRepository(db.models.Project, db.models.ProjectRevision, db.ids),
      teachers,
      workflow,
      report,
    ),
  };
}
