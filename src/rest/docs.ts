// The REST facade's documentation: GET /openapi.json (the OpenAPI document @fastify/swagger generates from the route
// declarations) and GET /docs (Swagger UI, @fastify/swagger-ui, its files served by the service: no CDN). Neither is
// needed to serve the API, so they are built on their first request, not at start-up (they load about 130 modules,
// a YAML library and a static file server among them): a Fastify instance of their own declares the same routes with
// the same schemas (routeSchema(); its handlers never run) and the documentation plugins, and the app passes every
// request for these paths to it.
import fastifySwagger from "@fastify/swagger";
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { failure } from "../answers/failure";
import { appNotFoundHandler, sendFailure } from "../answers/http-fallback";
import { FieldErrorReason } from "../shared/errors";
import { OPENAPI_OPTIONS } from "./openapi";
import { REST_ROUTES, routeSchema } from "./rest.plugin";
import { SHARED_SCHEMAS } from "./schemas";

/** Headers of the documentation's answers that the app's own reply sets itself. */
const HOP_HEADERS = new Set(["content-length", "connection", "transfer-encoding", "keep-alive", "date"]);

/** A Fastify instance declaring the REST routes with their schemas for @fastify/swagger (their handlers never run). */
async function declareRoutes(): Promise<FastifyInstance> {
  const docs = Fastify();
  await docs.register(fastifySwagger, OPENAPI_OPTIONS);
  await docs.register(async (scope) => {
    for (const schema of SHARED_SCHEMAS) scope.addSchema(schema);
    for (const route of REST_ROUTES) {
      scope.route({
        method: route.method,
        url: route.url,
        schema: routeSchema(route),
        handler: async () => {
          throw new Error("the documentation's copy of a route never runs");
        },
      });
    }
  });
  return docs;
}

/** The OpenAPI document GET /openapi.json answers, built apart from any app (npm run schema writes it). */
export async function openApiDocument(): Promise<unknown> {
  const docs = await declareRoutes();
  try {
    await docs.ready();
    return docs.swagger();
  } finally {
    await docs.close();
  }
}

async function buildDocumentation(): Promise<FastifyInstance> {
  const docs = await declareRoutes();
  docs.get("/openapi.json", { schema: { hide: true } }, async () => docs.swagger());
  await docs.register(import("@fastify/swagger-ui"), {
    routePrefix: "/docs",
    // Swagger UI's validator badge would call an outside host.
    uiConfig: { deepLinking: true, validatorUrl: null },
  });
  await docs.ready();
  return docs;
}

export const docsPlugin: FastifyPluginAsync = async (app) => {
  let documentation: Promise<FastifyInstance> | undefined;
  app.addHook("onClose", async () => {
    await documentation?.then(
      (docs) => docs.close(),
      () => undefined,
    );
  });
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    // A build that failed is tried again by the next request rather than kept.
    documentation ??= buildDocumentation().catch((err: unknown) => {
      documentation = undefined;
      throw err;
    });
    const docs = await documentation;
    const answered = await docs.inject({ method: request.method as "GET", url: request.url });
    // The documentation's own failures (a file it does not have) are answered like every other failure.
    if (answered.statusCode === 404) return appNotFoundHandler(request, reply);
    if (answered.statusCode >= 400)
      return sendFailure(
        request,
        reply,
        failure(
          answered.statusCode,
          FieldErrorReason.MALFORMED_REQUEST,
          "the documentation cannot answer this request",
        ),
      );
    for (const [name, value] of Object.entries(answered.headers)) {
      if (!HOP_HEADERS.has(name) && value !== undefined) void reply.header(name, value);
    }
    return reply.code(answered.statusCode).send(answered.rawPayload);
  };
  app.get("/openapi.json", answer);
  app.get("/docs", answer);
  app.get("/docs/*", answer);
};
