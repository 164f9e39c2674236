// The domain services of one app instance; stateless, shared by GraphQL and REST.
import {
  ProjectChangeFeed,
  ProjectService,
  type ProjectAccessPolicy,
  type StatusWorkflow,
} from "./components/projects";
import { ProjectRepository } from "./components/projects/persistence";
import { StudentService } from "./components/students";
import { StudentRepository } from "./components/students/persistence";
import { TeacherService } from "./components/teachers";
import { TeacherRepository } from "./components/teachers/persistence";
import {
  WebhookDispatcher,
  WebhookService,
  type WebhookDispatcherOptions,
  type WebhooksFile,
} from "./components/webhooks";
import { WebhookRepository } from "./components/webhooks/persistence";
import { changeLogOf, type Database } from "./persistence";
import type { Logger } from "./logger";
import type { UnanswerableRecord } from "./shared/record-guard";

export interface Services {
  projects: ProjectService;
  teachers: TeacherService;
  students: StudentService;
  /** Live updates of projects: this instance's reader of the change log (stop it when the app closes). */
  projectChanges: ProjectChangeFeed;
  /** Webhook deliveries as admins see and redo them. */
  webhooks: WebhookService;
  /** Delivers the change log to WEBHOOKS's endpoints; undefined without endpoints (start it, stop it with the app). */
  webhookDispatcher?: WebhookDispatcher;
}

/** What the webhooks of one app instance run with (WEBHOOKS and its variables). */
export interface WebhookSettings extends Omit<WebhookDispatcherOptions, "endpoints" | "logger" | "pollMs"> {
  file?: WebhooksFile;
}

/** SUBSCRIPTION_POLL_MS's default, for services built outside the app (scripts, tests), which start no feed. */
const DEFAULT_POLL_MS = 250;

/**
 * The services of one app instance. `logger` hears of stored records the API cannot answer (they arrive by imports or
 * direct writes, never through the service): reads leave them out and name collection, id and field here; and of
 * the change feed failing to read the log (it retries at its next tick). `accessPolicy` is ACCESS_POLICY's row rules
 * (undefined: unset).
 */
export function createServices(
  db: Database,
  workflow: StatusWorkflow | undefined,
  logger: Logger,
  subscriptionPollMs = DEFAULT_POLL_MS,
  accessPolicy?: ProjectAccessPolicy,
  webhooks?: WebhookSettings,
): Services {
  const report = (problem: UnanswerableRecord) =>
    logger.warn(
      problem,
      `stored record cannot be answered: ${problem.collection} ${String(problem.id)} field ${problem.field}; left out of reads (npm run db:check lists such records)`,
    );
  const changeLog = changeLogOf(db);
  const projectRepository = new ProjectRepository(db.models.Project, changeLog, db.ids, db.transactions, db.reads);
  const teachers = new TeacherService(
    new TeacherRepository(db.models.Teacher, db.ids, db.transactions),
    report,
    (teacherId, session) => projectRepository.countOfTeacher(teacherId, session),
  );
  const projects = new ProjectService(projectRepository, teachers, workflow, report, accessPolicy);
  const endpoints = webhooks?.file?.endpoints ?? [];
  const webhookRepository = new WebhookRepository(
    db.models.WebhookEndpoint,
    db.models.WebhookDelivery,
    db.transactions,
  );
  const webhookService = new WebhookService(webhookRepository, endpoints);
  let webhookDispatcher: WebhookDispatcher | undefined;
  if (webhooks && endpoints.length > 0) {
    webhookDispatcher = new WebhookDispatcher(webhookRepository, changeLog, {
      ...webhooks,
      endpoints,
      pollMs: subscriptionPollMs,
      logger,
    });
    const dispatcher = webhookDispatcher;
    webhookService.onRedeliver(() => dispatcher.nudge());
  }
  return {
    webhooks: webhookService,
    webhookDispatcher,
    teachers,
    students: new StudentService(new StudentRepository(db.models.Student, db.ids, db.transactions), report),
    projects,
    projectChanges: new ProjectChangeFeed(changeLog, projects, {
      pollMs: subscriptionPollMs,
      onError: (err) => logger.warn({ err }, "reading the change log failed; retrying"),
    }),
  };
}
