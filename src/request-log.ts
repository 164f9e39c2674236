// One log line per request, with its latency (Fastify's default is two lines: incoming and completed).
import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

export class OneLineRequestLog extends LogController {
  incomingRequest(): void {
    // Logged once, at completion.
  }

  requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, "request failed");
    else reply.log.info(line, "request");
  }
}
