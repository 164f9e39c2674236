// What the federation tests share: the service started as a subgraph (FEDERATION=true) on a database whose commands
// are counted, GraphQL posted as plain HTTP (the documents name _entities and _service, which the committed
// schema/schema.graphql that codegen reads does not have), and global ids.
import type { mongo } from "mongoose";
import { openDatabase } from "../../src/persistence";
import { startTestApp, type GraphQLBody, type Headers, type TestApp, type TestAppOptions } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";

export { ADMIN, STUDENT, TEACHER } from "../helpers/fixtures";
export { insertProjects, insertStudents, insertTeachers, range } from "../lists/support";

export interface Subgraph extends TestApp {
  /** The commands the service sent its database while `run` ran, as "<command> <collection>", sorted. */
  commandsOf<T>(run: () => Promise<T>): Promise<{ result: T; commands: string[] }>;
  /** POST /graphql with this body (query or documentId, variables …) and headers. */
  post<Data = Record<string, unknown>>(
    body: Record<string, unknown>,
    headers?: Headers,
  ): Promise<{ status: number; body: GraphQLBody<Data> }>;
}

/** The service with FEDERATION=true on a database of its own whose commands are monitored. */
export async function startSubgraph(options: TestAppOptions = {}): Promise<Subgraph> {
  const dbName = testDbName();
  const db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
  const t = await startTestApp({ ...options, db, config: { federation: true, ...options.config } });
  return {
    ...t,
    async commandsOf(run) {
      const seen: mongo.CommandStartedEvent[] = [];
      const listener = (event: mongo.CommandStartedEvent) => {
        if (event.databaseName === dbName) seen.push(event);
      };
      const client = db.connection.getClient();
      client.on("commandStarted", listener);
      try {
        const result = await run();
        return { result, commands: seen.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`).sort() };
      } finally {
        client.off("commandStarted", listener);
      }
    },
    post: (body, headers = {}) => t.http("POST", "/graphql", { body, headers }),
    async close() {
      await t.app.close();
      await dropTestDatabase(db);
    },
  };
}

/** The global id of a record, as the service hands it out (node.ts): base64url of "<Type>:<number>". */
export const idOf = (type: string, n: number): string => Buffer.from(`${type}:${n}`).toString("base64url");

/** The document a router sends for entities, selecting these fields of each type. */
export const ENTITIES_QUERY = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Project { id project_id project_name }
    ... on Teacher { id teacher_id teacher_name }
    ... on Student { id student_id student_name }
  }
}`;
