// The reference of npm run bench:cpu: the least a GraphQL server does to answer the service's reads — Fastify,
// graphql-js executing a schema with the same field names, the driver's documents handed out as they come, and the
// same queries to the database as the service sends (one batched teacher query per request through DataLoader, one
// page query per Teacher.projects) — so the service's CPU per request can be read as a ratio to it. Started as a
// child process with MONGODB_URI (database name included) and PORT; prints "Ready: <url>".
import DataLoader from "dataloader";
import Fastify from "fastify";
import { buildSchema, graphql } from "graphql";
import { MongoClient, type Document } from "mongodb";

const SCHEMA = buildSchema(`
  type Query {
    project(projectId: Int!): Project
    projects(offset: Int! = 0, limit: Int! = 20): ProjectPage!
  }
  type ProjectPage { items: [Project!]! }
  type Project {
    project_id: Int!
    project_name: String!
    project_desc: String!
    company_id: Int!
    project_status: String!
    project_url: String
    start_date: String!
    end_date: String!
    teacher: Teacher
  }
  type Teacher {
    teacher_id: Int!
    teacher_name: String!
    projects(offset: Int! = 0, limit: Int! = 20): [Project!]!
  }
`);

async function main(): Promise<void> {
  const client = await MongoClient.connect(process.env.MONGODB_URI!);
  const db = client.db();
  const projects = db.collection("projects");
  const teachers = db.collection("teachers");

  const projectOf = (doc: Document, loader: DataLoader<number, Document | null>) => ({
    ...doc,
    teacher: () => (doc.teacher_id == null ? null : loader.load(doc.teacher_id as number)),
  });
  const teacherOf = (doc: Document, loader: DataLoader<number, Document | null>) => ({
    ...doc,
    projects: async ({ offset, limit }: { offset: number; limit: number }) =>
      (
        await projects.find({ teacher_id: doc.teacher_id }).sort({ project_id: 1 }).skip(offset).limit(limit).toArray()
      ).map((p) => projectOf(p, loader)),
  });

  const app = Fastify();
  app.post<{ Body: { query: string; variables?: Record<string, unknown> } }>("/graphql", async (request) => {
    const loader: DataLoader<number, Document | null> = new DataLoader(async (ids) => {
      const found = await teachers.find({ _id: { $in: ids.map(String) } as never }).toArray();
      const byId = new Map(found.map((t) => [t.teacher_id as number, teacherOf(t, loader)]));
      return ids.map((id) => byId.get(id) ?? null);
    });
    return graphql({
      schema: SCHEMA,
      source: request.body.query,
      variableValues: request.body.variables,
      rootValue: {
        project: async ({ projectId }: { projectId: number }) => {
          const doc = await projects.findOne({ _id: String(projectId) as never });
          return doc && projectOf(doc, loader);
        },
        projects: async ({ offset, limit }: { offset: number; limit: number }) => ({
          items: (await projects.find({}).sort({ project_id: 1 }).skip(offset).limit(limit).toArray()).map((p) =>
            projectOf(p, loader),
          ),
        }),
      },
    });
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
