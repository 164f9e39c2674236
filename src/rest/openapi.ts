// The OpenAPI 3.1 document of the REST facade, generated from the routes as Fastify registered them (their schemas,
// methods and paths) and from the role table, so it cannot drift from what the server validates and answers.
import type { RouteOptions } from "fastify";
import { ACCESS_POLICY, isOperation } from "../auth/access-policy";
import { ERROR_STATUS_DESCRIPTIONS } from "./error-status";
import * as schemas from "./schemas";

/** The version of the interface (info.version), not of the package: it changes only with the contract. */
const INTERFACE_VERSION = "1.0.0";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Schema objects shared by several routes become named components, found by identity. */
const COMPONENTS: Record<string, object> = {
  Project: schemas.Project,
  Teacher: schemas.Teacher,
  Student: schemas.Student,
  ErrorCode: schemas.ErrorCodeSchema,
  FieldError: schemas.FieldError,
  ErrorEnvelope: schemas.ErrorEnvelope,
  ProjectEnvelope: schemas.ProjectEnvelope,
  TeacherEnvelope: schemas.TeacherEnvelope,
  StudentEnvelope: schemas.StudentEnvelope,
  CreateProjectInput: schemas.CreateProjectInput,
  AssignTeacherInput: schemas.AssignTeacherInput,
  UpdateProjectStatusInput: schemas.UpdateProjectStatusInput,
  UpdateTeacherInput: schemas.UpdateTeacherInput,
  UpdateStudentInput: schemas.UpdateStudentInput,
};
const NAME_OF = new Map<unknown, string>(Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]));

function withRefs(value: unknown, root = false): Json {
  if (!root && NAME_OF.has(value)) return { $ref: `#/components/schemas/${NAME_OF.get(value)}` };
  if (Array.isArray(value)) return value.map((item) => withRefs(item));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withRefs(item)]));
  }
  return value as Json;
}

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "jwt mode (AUTH_JWT_SECRET or AUTH_JWKS_URL set): a token with sub and roles claims. " +
      "The X-User-Role header, when sent, must be one of the token's roles.",
  },
  userRole: {
    type: "apiKey",
    in: "header",
    name: "X-User-Role",
    description:
      "The acting role: student, teacher or admin (case-insensitive). In header mode (development only) it is " +
      "trusted as sent, and the optional X-User-Id header names the caller.",
  },
} as const;

/** Who may call: both auth modes as alternatives, from the role table. */
function access(operation: string): { security: Json; description: string } {
  if (!isOperation(operation)) return { security: [], description: "" };
  const { roles } = ACCESS_POLICY[operation];
  if (roles === "any") {
    return {
      security: [{ bearerAuth: [] }, { userRole: [] }],
      description: "Any authenticated caller.",
    };
  }
  return {
    security: [{ bearerAuth: [], userRole: [] }, { userRole: [] }],
    description: `Acting role (X-User-Role): ${roles.join(" or ")}.`,
  };
}

function successDescription(status: number): string {
  return status === 201 ? "Created: {success: true, message, data}" : "Done: {success: true, message, data}";
}

/** The parts of a route's schema (src/rest/route.ts) the document is made of. */
interface RouteSchema {
  operationId: string;
  summary: string;
  tags: string[];
  params?: { properties?: Record<string, { description?: string }> };
  body?: unknown;
  response?: Record<string, unknown>;
}

function operationOf(route: RouteOptions): Json {
  const schema = route.schema as RouteSchema;
  const params = schema.params?.properties ?? {};
  const { security, description } = access(schema.operationId);
  const responses: Record<string, Json> = {};
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    const code = Number(status);
    responses[status] = {
      description: code < 400 ? successDescription(code) : (ERROR_STATUS_DESCRIPTIONS[code] ?? "Error"),
      content: { "application/json": { schema: withRefs(body) } },
    };
  }
  return {
    operationId: schema.operationId,
    summary: schema.summary,
    description,
    tags: schema.tags,
    security,
    ...(Object.keys(params).length > 0
      ? {
          parameters: Object.entries(params).map(([name, paramSchema]) => ({
            name,
            in: "path",
            required: true,
            description: paramSchema.description ?? null,
            schema: withRefs(paramSchema),
          })),
        }
      : {}),
    ...(schema.body
      ? { requestBody: { required: true, content: { "application/json": { schema: withRefs(schema.body) } } } }
      : {}),
    responses,
  };
}

export type OpenApiDocument = { openapi: "3.1.0"; paths: Record<string, Record<string, Json>> } & Record<string, Json>;

/** Routes without an operationId (the document's own route, HEAD twins) are not part of the interface. */
export function buildOpenApiDocument(routes: RouteOptions[]): OpenApiDocument {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    if (!(route.schema as { operationId?: string } | undefined)?.operationId) continue;
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    for (const method of [route.method].flat()) {
      (paths[path] ??= {})[method.toLowerCase()] = operationOf(route);
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Project service — REST interface",
      version: INTERFACE_VERSION,
      description:
        "The original REST interface, served over the same domain logic as the GraphQL API at /graphql. " +
        "Success bodies are {success: true, message, data}; every error body is {success: false, message, code, errors} (errors: every problem, each naming its field).",
    },
    tags: [{ name: "projects" }, { name: "teachers" }, { name: "students" }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(COMPONENTS).map(([name, schema]) => [name, withRefs(schema, true)])),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
