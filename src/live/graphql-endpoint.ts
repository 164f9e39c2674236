// The /graphql routes: POST (and GET for queries) answered by Apollo, and the WebSocket upgrade of GET answered by
// the LiveServer (graphql-ws.ts). @fastify/websocket rather than a bare `ws` server on the HTTP server's `upgrade`
// event: with it an upgrade is routed like any request, so it gets a request id, the per-caller rate limit, the 503
// while the service drains, a route-level connection limit answered before the WebSocket exists, and 404 on paths
// that take none — without a second dispatch path beside Fastify's.
import type { ApolloServer } from "@apollo/server";
import { fastifyApolloHandler, type ApolloFastifyContextFunction } from "@as-integrations/fastify";
import fastifyWebsocket from "@fastify/websocket";
import type { FastifyInstance } from "fastify";
import type { Context } from "../graphql/context";
import { handleProtocols } from "graphql-ws";
import { failure } from "../answers/failure";
import { sendFailure } from "../answers/http-fallback";
import { ErrorCode, FieldErrorReason } from "../shared/errors";
import type { LiveServer } from "./graphql-ws";

/** The largest message a client may send over the WebSocket (an HTTP body's limit). */
const MAX_MESSAGE_BYTES = 1024 * 1024;

export async function registerGraphqlEndpoint(
  app: FastifyInstance,
  {
    apollo,
    context,
    live,
  }: { apollo: ApolloServer<Context>; context: ApolloFastifyContextFunction<Context>; live: LiveServer },
): Promise<void> {
  const handler = fastifyApolloHandler(apollo, { context });
  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: MAX_MESSAGE_BYTES,
      handleProtocols: (protocols) => handleProtocols(protocols),
    },
    errorHandler: (error, socket, request) => {
      request.log.info({ err: error }, "GraphQL WebSocket error");
      socket.terminate();
    },
    // Every socket closes with 1001 before the server stops (app.close), so clients reconnect elsewhere.
    preClose: async () => {
      await live.close();
      app.websocketServer.close();
    },
  });
  app.route({ method: ["POST", "OPTIONS"], url: "/graphql", handler });
  app.route({
    method: "GET",
    url: "/graphql",
    handler,
    wsHandler: live.handle,
    preHandler: async (request, reply) => {
      if (!request.ws || live.admits()) return;
      return sendFailure(
        request,
        reply.header("retry-after", "5"),
        failure(
          503,
          FieldErrorReason.UNAVAILABLE,
          "This instance holds its most WebSocket connections (WS_MAX_CONNECTIONS); retry later or elsewhere",
          ErrorCode.INTERNAL_SERVER_ERROR,
        ),
      );
    },
  });
}
