// The composition root of persistence: every component's models on one connection, and what runs when a database
// opens (the upgrades of data stored by earlier versions). src/db knows no component; it gets them from here.
import type { Connection } from "mongoose";
import {
  createProjectChangeModel,
  createProjectModel,
  createProjectRevisionModel,
  FOLDED_PROJECT_NAME,
  catchUpProjects as catchUpProjectsOf,
  migrateProjectRevisions,
  ProjectChangeLog,
  upgradeProjects,
  type ProjectChangeModel,
  type ProjectModel,
  type ProjectRevisionModel,
} from "./components/projects/persistence";
import { createStudentModel, FOLDED_STUDENT_NAME, type StudentModel } from "./components/students/persistence";
import { createTeacherModel, FOLDED_TEACHER_NAME, type TeacherModel } from "./components/teachers/persistence";
import { bringUpDerivedField } from "./db/derived-fields";
import {
  createWebhookDeliveryModel,
  createWebhookEndpointModel,
  type WebhookDeliveryModel,
  type WebhookEndpointModel,
} from "./components/webhooks/persistence";
import {
  connectDatabase,
  type Database as DatabaseOf,
  type DatabaseSchema,
  type OpenDatabaseOptions,
} from "./db/database";

export interface AppModels {
  Project: ProjectModel;
  /** The change log of projects (project_changes): every revision, at its log position. */
  ProjectChange: ProjectChangeModel;
  /** Revisions as versions before the change log stored them (project_revisions): read once, to migrate them. */
  ProjectRevision: ProjectRevisionModel;
  Teacher: TeacherModel;
  Student: StudentModel;
  /** Webhooks: each endpoint's cursor in the change log, lease and off state (webhook_endpoints). */
  WebhookEndpoint: WebhookEndpointModel;
  /** Webhooks: the deliveries of selected changes, with their attempts (webhook_deliveries). */
  WebhookDelivery: WebhookDeliveryModel;
}

export type Database = DatabaseOf<AppModels>;
export type Models = Database["models"];

export const APP_SCHEMA: DatabaseSchema<AppModels> = {
  models: (connection: Connection) => ({
    Project: createProjectModel(connection),
    ProjectChange: createProjectChangeModel(connection),
    ProjectRevision: createProjectRevisionModel(connection),
    Teacher: createTeacherModel(connection),
    Student: createStudentModel(connection),
    WebhookEndpoint: createWebhookEndpointModel(connection),
    WebhookDelivery: createWebhookDeliveryModel(connection),
  }),
  // project_revisions is only read, once, by the migration: it is not created where it does not exist.
  readOnly: ["ProjectRevision"],
  async prepare(db, progress) {
    // Insert-only and idempotent; markers make later starts skip them (project-upgrades.ts).
    await migrateProjectRevisions(db, progress);
    await upgradeProjects(db, changeLogOf(db), progress);
    // Folded names of lists (where: project_name), in projects stored before the field was.
    await bringUpDerivedField(db.connection, db.models.Project, FOLDED_PROJECT_NAME);
    await bringUpDerivedField(db.connection, db.models.Teacher, FOLDED_TEACHER_NAME);
    await bringUpDerivedField(db.connection, db.models.Student, FOLDED_STUDENT_NAME);
  },
};

/** Opens the app's database: its models, indexes and migrations. */
export function openDatabase(uri: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  return connectDatabase(uri, APP_SCHEMA, options);
}

/** The projects' change log of a database. */
export function changeLogOf(db: Database): ProjectChangeLog {
  return new ProjectChangeLog(db.models.ProjectChange, db.ids);
}

/**
 * Brings the projects up to the change log on a database no writer uses, copied while it was being written (a backup
 * read from MONGODB_URI reads the projects before the log); returns how many projects it wrote.
 */
export function catchUpProjects(db: Database): Promise<number> {
  return catchUpProjectsOf(db, changeLogOf(db));
}
