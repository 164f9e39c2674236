// The database handle the app runs on: one Mongoose connection, its models, and the id allocator.
// Built per connection (no global mongoose state), so tests can open one per file on its own database name.
import mongoose, { type Connection } from "mongoose";
import {
  createProjectModel,
  createProjectRevisionModel,
  type ProjectModel,
  type ProjectRevisionModel,
} from "../components/projects/project.model";
import { createStudentModel, type StudentModel } from "../components/students/student.model";
import { createTeacherModel, type TeacherModel } from "../components/teachers/teacher.model";
import { createCounterModel, type CounterModel } from "./counter.model";
import { IdAllocator } from "./id-allocator";

export const DEFAULT_DB_NAME = "project_service";

export interface Models {
  Project: ProjectModel;
  ProjectRevision: ProjectRevisionModel;
  Teacher: TeacherModel;
  Student: StudentModel;
  Counter: CounterModel;
}

export interface Database {
  connection: Connection;
  models: Models;
  ids: IdAllocator;
  /** Answers within the timeout while the server is reachable. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Database name: the one in the URI path if any, else `fallback`. */
export function dbNameFor(uri: string, fallback = DEFAULT_DB_NAME): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]*)/.exec(uri);
  return match && match[1] ? decodeURIComponent(match[1]) : fallback;
}

export interface OpenDatabaseOptions {
  dbName?: string;
  /** Emit the driver's command monitoring events (commandStarted …) on connection.getClient(); off by default. */
  monitorCommands?: boolean;
  /** The driver's connection pool size; unset keeps the driver's default (or the URI's maxPoolSize). */
  maxPoolSize?: number;
}

export async function openDatabase(uri: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  const connection = mongoose.createConnection(uri, {
    dbName: options.dbName ?? dbNameFor(uri),
    autoIndex: false,
    serverSelectionTimeoutMS: 10_000,
    monitorCommands: options.monitorCommands ?? false,
    ...(options.maxPoolSize ? { maxPoolSize: options.maxPoolSize } : {}),
  });
  await connection.asPromise();
  const models: Models = {
    Project: createProjectModel(connection),
    ProjectRevision: createProjectRevisionModel(connection),
    Teacher: createTeacherModel(connection),
    Student: createStudentModel(connection),
    Counter: createCounterModel(connection),
  };
  // Unique indexes are what make ids and names unique: create them now, and fail start-up if one cannot be built.
  for (const model of Object.values(models)) {
    await model.createCollection().catch(ignoreNamespaceExists);
    await model.createIndexes();
  }
  return {
    connection,
    models,
    ids: new IdAllocator(models.Counter),
    async ping(timeoutMs = 1000) {
      try {
        const db = connection.db;
        if (!db || connection.readyState !== 1) return false;
        await db.command({ ping: 1 }, { timeoutMS: timeoutMs });
        return true;
      } catch {
        return false;
      }
    },
    close: () => connection.close(),
  };
}

function ignoreNamespaceExists(err: { code?: number }): void {
  if (err?.code !== 48) throw err;
}
