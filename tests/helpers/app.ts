// Starts the real app in-process on an ephemeral port, on the test file's own database, and talks to it over HTTP.
import { print } from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import pino from "pino";
import type { FastifyInstance } from "fastify";
import { createApp, type AppOptions } from "../../src/app";
import type { AuthConfig, Config } from "../../src/config";
import type { StatusWorkflow } from "../../src/components/projects";
import type { Database } from "../../src/persistence";
import { testAppConfig } from "./app-config";
import { dropTestDatabase, openTestDatabase } from "./database";

export type Headers = Record<string, string>;

export interface GraphQLResponse<T> {
  status: number;
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; reason?: string; field?: string } }[];
}

/** A REST answer's body: the envelope ({success, message, data} or {success: false, message, code, errors}). */
export interface RestBody<Data = Record<string, unknown>> {
  success: boolean;
  message: string;
  code?: string;
  errors?: { field: string | null; message: string; code: string; reason: string }[];
  data?: Data | null;
}

/** A GraphQL answer's body as sent over HTTP. */
export interface GraphQLBody<Data = Record<string, unknown>> {
  data?: Data | null;
  errors?: { message: string; extensions?: { code?: string; reason?: string; field?: string } }[];
}

/** What the plain-HTTP tests' inline documents ask for (createTeacher's payload, teachers' total, a teacher). */
export type TeacherDocumentBody = GraphQLBody<{
  createTeacher: { success: boolean; code?: string | null; message?: string; data?: { teacher_id: number } | null };
  teachers: { total: number };
  teacher: { teacher_id: number } | null;
}>;

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  url: string;
  gql<T, V>(document: TypedDocumentNode<T, V>, variables: V, headers?: Headers): Promise<GraphQLResponse<T>>;
  /** A plain HTTP call to the app (REST routes, health). */
  http<Body = RestBody>(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; headers?: Headers },
  ): Promise<{ status: number; body: Body }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  auth?: AuthConfig;
  statusWorkflow?: StatusWorkflow;
  /** Reuse another app's database (e.g. one app per auth mode on the same data). */
  db?: Database;
  /** CORS_ORIGINS; default: unset (localhost origins outside production). */
  corsOrigins?: Config["corsOrigins"];
  /** EXPLORER; default: graphiql. */
  explorer?: Config["explorer"];
  /** NODE_ENV=production behaviour (no explorer, no default CORS origins); default: false. */
  production?: boolean;
  /** More configuration for createApp (rate limit, metrics token, production). */
  config?: Partial<AppOptions["config"]>;
  /** The app's logger (default: silent). */
  logger?: AppOptions["logger"];
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownDb = !options.db;
  const db = options.db ?? (await openTestDatabase());
  const app = await createApp({
    config: testAppConfig({
      auth: options.auth,
      statusWorkflow: options.statusWorkflow,
      production: options.production,
      corsOrigins: options.corsOrigins,
      explorer: options.explorer,
      ...options.config,
    }),
    logger: options.logger ?? pino({ level: "silent" }),
    db,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  const http: TestApp["http"] = async (method, path, { body, rawBody, headers } = {}) => {
    const hasBody = body !== undefined || rawBody !== undefined;
    const response = await fetch(url + path, {
      method,
      headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...headers },
      body: rawBody ?? (body !== undefined ? JSON.stringify(body) : undefined),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    // The caller names the shape it expects (RestBody by default); the assertions check it.
    return { status: response.status, body: parsed as never };
  };

  return {
    app,
    db,
    url,
    http,
    async gql<T, V>(document: TypedDocumentNode<T, V>, variables: V, headers: Headers = {}) {
      const { status, body } = await http<GraphQLBody<T> | null>("POST", "/graphql", {
        body: { query: print(document), variables },
        headers,
      });
      return { status, data: body?.data, errors: body?.errors };
    },
    async close() {
      await app.close();
      if (ownDb) await dropTestDatabase(db);
    },
  };
}
