// What the OpenAPI document of the REST facade says beyond the route schemas: @fastify/swagger generates the document
// from the routes as registered (methods, paths, parameters, bodies, responses and the shared schemas as components);
// this module gives it the document's header and, per route, who may call it (from the role table) and what each
// status means.
import type { SwaggerOptions } from "@fastify/swagger";
import { ACCESS_POLICY, type Operation } from "../auth/access-policy";

/** The version of the interface (info.version), not of the package: it changes only with the contract. */
const INTERFACE_VERSION = "1.0.0";

export const OPENAPI_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: "3.1.0",
    info: {
      title: "Project service — REST interface",
      version: INTERFACE_VERSION,
      description:
        "The original REST interface, served over the same domain logic as the GraphQL API at /graphql. " +
        "Success bodies are {success: true, message, data}; every error body is {success: false, message, code, errors} (errors: every problem, each naming its field).",
    },
    tags: [{ name: "projects" }, { name: "teachers" }, { name: "students" }],
    components: {
      securitySchemes: {
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
      },
    },
  },
  // OpenAPI 3.1 is JSON Schema 2020-12: `const` stays as written.
  convertConstToEnum: false,
  // Shared schemas become components under their $id (not @fastify/swagger's generated def-N names).
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
};

/** Who may call an operation: both auth modes as alternatives, from the role table. */
export function accessOf(operation: Operation): {
  security: Record<string, string[]>[];
  description: string;
} {
  const { roles } = ACCESS_POLICY[operation];
  if (roles === "any") {
    return { security: [{ bearerAuth: [] }, { userRole: [] }], description: "Any authenticated caller." };
  }
  return {
    security: [{ bearerAuth: [], userRole: [] }, { userRole: [] }],
    description: `Acting role (X-User-Role): ${roles.join(" or ")}.`,
  };
}

/** What each error status means on these routes: the OpenAPI document's response descriptions. */
export const ERROR_STATUS_DESCRIPTIONS: Record<number, string> = {
  400: "BAD_REQUEST: malformed JSON, an unknown or non-updatable field, a wrong type, or a value the service rejects",
  401: "UNAUTHORIZED: not authenticated, or no acting role where one is needed",
  403: "FORBIDDEN: the acting role may not run this operation",
  404: "NOT_FOUND: the resource (or a resource it refers to) does not exist",
  409: "CONFLICT: the change collides with the current state",
  413: "BAD_REQUEST: the request body is larger than the server accepts",
  415: "BAD_REQUEST: the request body is not application/json",
  500: "INTERNAL_SERVER_ERROR: an unexpected failure, logged by the server",
  503: "SERVICE_UNAVAILABLE: the change got no turn at the database in time (load shed); send it again after Retry-After seconds",
};

export function successDescription(status: number): string {
  return status === 201 ? "Created: {success: true, message, data}" : "Done: {success: true, message, data}";
}
