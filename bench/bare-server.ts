// The reference of npm run bench:startup: the least a server of this kind does before it answers /readyz — Fastify,
// a graphql-js schema executed on POST /graphql, and the MongoDB driver connected to the same database — so the
// service's start-up cost can be read as a ratio to it. Started as a child process with MONGODB_URI and PORT.
import Fastify from "fastify";
import { buildSchema, graphql } from "graphql";
import { MongoClient } from "mongodb";

async function main(): Promise<void> {
  const client = await MongoClient.connect(process.env.MONGODB_URI!);
  const db = client.db();
  const schema = buildSchema("type Query { projects: Int! }");
  const app = Fastify();
  app.post<{ Body: { query: string } }>("/graphql", async (request) =>
    graphql({
      schema,
      source: request.body.query,
      rootValue: { projects: () => db.collection("projects").countDocuments() },
    }),
  );
  app.get("/readyz", async (_request, reply) => {
    await db.command({ ping: 1 });
    return reply.send({ status: "ready" });
  });
  const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
  process.stdout.write(`Ready: ${address}\n`);
  const stop = () =>
    void app
      .close()
      .then(() => client.close())
      .then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

void main();
