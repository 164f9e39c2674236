// One log line per request, with its latency (Fastify's default is two lines: incoming and completed). The line
// names the request (reqId, from the request's logger), the caller (id and role), the GraphQL operation and its
// outcome; it logs the path only, never the query string, which may carry GraphQL variables or tokens.
import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

export class OneLineRequestLog extends LogController {
  incomingRequest(): void {
    // Logged once, at completion.
  }

  requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const caller = request.caller;
    const line = {
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      // pino leaves out undefined fields: a health probe's line stays short.
      callerId: caller?.authenticated ? caller.id : undefined,
      role: caller?.authenticated ? caller.role : undefined,
      operation: request.graphql?.operation,
      outcome: request.graphql?.outcome,
    };
    if (error) reply.log.error({ ...line, err: error }, "request failed");
    else reply.log.info(line, "request");
  }
}

function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
