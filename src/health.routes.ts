// Liveness and readiness: /healthz answers while the process runs, /readyz only while the database answers.
// /readyz answers within 1 s whatever the database does: a ping that takes longer counts as no answer, and while the
// embedded database is known to be down (being started again) it answers 503 at once, saying so. While the
// service drains for shutdown every route, /readyz included, answers 503 (src/http/server-options.ts).
import type { FastifyInstance } from "fastify";
import type { Database } from "./persistence";
import { errorBody } from "./answers/envelope";
import { failure } from "./answers/failure";
import { ErrorCode, FieldErrorReason } from "./shared/errors";

/** How long /readyz waits for the database's ping; the rest of the second is left for answering. */
const READY_PING_TIMEOUT_MS = 900;

export function registerHealthRoutes(app: FastifyInstance, db: Database): void {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    if (await db.ping(READY_PING_TIMEOUT_MS)) return { status: "ready" };
    const down = db.availability.down;
    const unavailable = failure(
      503,
      FieldErrorReason.UNAVAILABLE,
      down
        ? "not ready: the embedded database is down and being started again"
        : `not ready: the database did not answer a ping within ${READY_PING_TIMEOUT_MS} ms`,
      ErrorCode.INTERNAL_SERVER_ERROR,
    );
    // `status` stays for probes that read it; the rest is the error envelope every route answers.
    return reply.code(unavailable.status).send({ status: "unavailable", ...errorBody(unavailable) });
  });
}
