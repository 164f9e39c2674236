// Liveness and readiness: /healthz answers while the process runs, /readyz only while the database answers.
import type { FastifyInstance } from "fastify";
import type { Database } from "./db/database";

export function registerHealthRoutes(app: FastifyInstance, db: Database): void {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    if (await db.ping()) return { status: "ready" };
    return reply.code(503).send({ status: "unavailable", reason: "database does not answer" });
  });
}
