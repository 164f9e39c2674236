// The original REST interface as a facade over the domain services: each route authenticates with the same
// authenticator, applies the same role table, makes one service call and answers the envelope (failures through the
// app's error handler, answers/http-fallback.ts). Encapsulated, so its strict validator and JSON-only body parsing do
// not change /graphql. Their documentation (GET /openapi.json, GET /docs) is generated from the same declarations
// (docs.ts).
import type { FastifyPluginAsync, FastifySchema } from "fastify";
import { ACCESS_POLICY, authorize } from "../auth/access-policy";
import { actorOf } from "../auth/actor";
import type { Authenticator } from "../auth/authenticator";
import { successBody } from "../answers/envelope";
import { HTTP_STATUS } from "../answers/failure";
import { callerOf } from "../http/caller";
import type { Services } from "../services";
import { ErrorCode } from "../shared/errors";
import { accessOf, ERROR_STATUS_DESCRIPTIONS, successDescription } from "./openapi";
import { projectRoutes } from "./projects.routes";
import type { RestRoute } from "./route";
import { ErrorEnvelope, idParam, ref, SHARED_SCHEMAS } from "./schemas";
import { studentRoutes } from "./students.routes";
import { teacherRoutes } from "./teachers.routes";
import { formatSchemaErrors, strictValidatorCompiler } from "./validation";

export interface RestPluginOptions {
  services: Services;
  authenticator: Authenticator;
}

export const REST_ROUTES: readonly RestRoute[] = [...projectRoutes, ...teacherRoutes, ...studentRoutes];

/**
 * 413 and 415 come from body parsing, so every route with a body can answer them; every route is a change, which the
 * service sheds with 503 when it gets no turn at the database in time.
 */
function errorStatuses(route: RestRoute): number[] {
  const rule = ACCESS_POLICY[route.operation];
  const forbidden =
    rule.roles !== "any" && rule.wrongRole === ErrorCode.FORBIDDEN ? [HTTP_STATUS[ErrorCode.FORBIDDEN]] : [];
  const statuses = [
    HTTP_STATUS[ErrorCode.BAD_REQUEST],
    HTTP_STATUS[ErrorCode.UNAUTHORIZED],
    ...forbidden,
    ...route.domainErrors,
    ...(route.body ? [413, 415] : []),
    HTTP_STATUS[ErrorCode.INTERNAL_SERVER_ERROR],
    HTTP_STATUS[ErrorCode.SERVICE_UNAVAILABLE],
  ];
  return [...new Set(statuses)].sort((a, b) => a - b);
}

/** A response of the document: its description and its JSON body. */
const response = (description: string, schema: { $id: string }) => ({
  description,
  content: { "application/json": { schema: ref(schema) } },
});

/** A route's schema: what Fastify validates and serialises with, and what the OpenAPI document is generated from. */
export function routeSchema(route: RestRoute): FastifySchema & Record<string, unknown> {
  return {
    operationId: route.operation,
    summary: route.summary,
    ...accessOf(route.operation),
    tags: [route.tag],
    ...(route.pathArg ? { params: idParam(route.pathArg) } : {}),
    ...(route.body ? { body: ref(route.body) } : {}),
    response: {
      [route.successStatus]: response(successDescription(route.successStatus), route.response),
      ...Object.fromEntries(
        errorStatuses(route).map((status) => [
          status,
          response(ERROR_STATUS_DESCRIPTIONS[status] ?? "Error", ErrorEnvelope),
        ]),
      ),
    },
  };
}

export const restPlugin: FastifyPluginAsync<RestPluginOptions> = async (app, { services, authenticator }) => {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  app.setValidatorCompiler(strictValidatorCompiler(() => Object.values(app.getSchemas())));
  app.setSchemaErrorFormatter(formatSchemaErrors);
  // JSON only: Fastify would otherwise hand a text/plain body to the route as a string.
  app.removeContentTypeParser("text/plain");

  for (const route of REST_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      schema: routeSchema(route),
      // Before the body is read: an unauthenticated caller gets 401/403 without the server parsing its body. The
      // app's onRequest hook has already authenticated the request (once); this reuses its caller.
      onRequest: async (request) => {
        authorize(await callerOf(request, authenticator), route.operation);
      },
      handler: async (request, reply) => {
        // The caller authenticated once for this request (the app's onRequest hook) is the actor of the change.
        const caller = await callerOf(request, authenticator);
        const actor = actorOf(caller);
        const params = request.params as Record<string, string>;
        const data = await route.run(services, params, request.body, actor, services.projects.accessOf(caller));
        return reply.code(route.successStatus).send(successBody(route.operation, data));
      },
    });
  }
};
