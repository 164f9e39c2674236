// The original REST interface as a facade over the domain services: each route authenticates with the same
// authenticator, applies the same role table, makes one service call and answers the envelope. Encapsulated, so its
// strict validator, error handler and JSON-only body parsing do not change /graphql; its not-found handler is the
// app's, so unknown routes also answer the envelope. GET /openapi.json serves the generated document.
import type { FastifyPluginAsync, RouteOptions } from "fastify";
import { ACCESS_POLICY, authorize } from "../auth/access-policy";
import { actorOf } from "../auth/actor";
import type { Authenticator } from "../auth/authenticator";
import { callerOf } from "../http/caller";
import type { Services } from "../services";
import { SUCCESS_MESSAGES } from "../shared/envelope";
import { ErrorCode } from "../shared/errors";
import { HTTP_STATUS, notFoundReply, toErrorReply } from "./error-status";
import { buildOpenApiDocument, type OpenApiDocument } from "./openapi";
import { projectRoutes } from "./projects.routes";
import type { RestRoute } from "./route";
import { ErrorEnvelope, idParam } from "./schemas";
import { studentRoutes } from "./students.routes";
import { teacherRoutes } from "./teachers.routes";
import { formatSchemaErrors, strictValidatorCompiler } from "./validation";

export interface RestPluginOptions {
  services: Services;
  authenticator: Authenticator;
}

export const REST_ROUTES: readonly RestRoute[] = [...projectRoutes, ...teacherRoutes, ...studentRoutes];

/** 413 and 415 come from body parsing, so every route with a body can answer them. */
function errorStatuses(route: RestRoute): number[] {
  const rule = ACCESS_POLICY[route.operation];
  const forbidden =
    rule.roles !== "any" && rule.wrongRole === ErrorCode.FORBIDDEN ? [HTTP_STATUS[ErrorCode.FORBIDDEN]] : [];
  const statuses = [
    HTTP_STATUS[ErrorCode.BAD_REQUEST],
    HTTP_STATUS[ErrorCode.UNAUTHORIZED],
    ...forbidden,
    ...route.domainErrors,
    413,
    415,
    HTTP_STATUS[ErrorCode.INTERNAL_SERVER_ERROR],
  ];
  return [...new Set(statuses)].sort((a, b) => a - b);
}

export const restPlugin: FastifyPluginAsync<RestPluginOptions> = async (app, { services, authenticator }) => {
  const registered: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    registered.push(route);
  });

  app.setValidatorCompiler(strictValidatorCompiler());
  app.setSchemaErrorFormatter(formatSchemaErrors);
  // JSON only: Fastify would otherwise hand a text/plain body to the route as a string.
  app.removeContentTypeParser("text/plain");

  app.setErrorHandler((err, request, reply) => {
    const { status, body } = toErrorReply(err, request.log);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const { status, body } = notFoundReply(request.method, request.url);
    return reply.code(status).send(body);
  });

  for (const route of REST_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      schema: {
        operationId: route.operation,
        summary: route.summary,
        tags: [route.tag],
        ...(route.pathArg ? { params: idParam(route.pathArg) } : {}),
        body: route.body,
        response: {
          [route.successStatus]: route.response,
          ...Object.fromEntries(errorStatuses(route).map((status) => [status, ErrorEnvelope])),
        },
      },
      // Before the body is read: an unauthenticated caller gets 401/403 without the server parsing its body. The
      // app's onRequest hook has already authenticated the request (once); this reuses its caller.
      onRequest: async (request) => {
        authorize(await callerOf(request, authenticator), route.operation);
      },
      handler: async (request, reply) => {
        // The caller authenticated once for this request (the app's onRequest hook) is the actor of the change.
        const actor = actorOf(await callerOf(request, authenticator));
        const data = await route.run(services, request.params as Record<string, string>, request.body, actor);
        return reply
          .code(route.successStatus)
          .send({ success: true, message: SUCCESS_MESSAGES[route.operation], data });
      },
    });
  }

  let document: OpenApiDocument | undefined;
  app.get("/openapi.json", async () => (document ??= buildOpenApiDocument(registered)));
};
