// Row-level access (ACCESS_POLICY, the contract's example policy) across roles × companies × operations, through
// GraphQL, REST, WebSocket and _entities (FEDERATION=true): each caller reads exactly the projects of its companies
// (by id, by global id, in pages, totals and cursors, through a teacher, in history and live updates), a project it
// may not read answers as one that does not exist, a change outside its change rule is FORBIDDEN and changes
// nothing, and createProject refuses a project its creator could not read. The expected answers come from
// support.ts's reading of the contract, not from the service's code.
import {
  AccessNodeDocument,
  AccessNodesDocument,
  AccessProjectDocument,
  AccessProjectHistoryDocument,
  AccessProjectPageDocument,
  AccessProjectsConnectionDocument,
  AccessTeacherProjectsDocument,
  AssignTeacherDocument,
  CreateProjectDocument,
  ProjectChangedDocument,
  ProjectChangesDocument,
  UpdateProjectStatusDocument,
  type ProjectChangesSubscription,
} from "../generated/graphql";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { liveClient, subscribe, type LiveClient, type Subscription } from "../helpers/live";
import { JWT_AUTH } from "../helpers/tokens";
import { ENTITIES_QUERY } from "../federation/support";
import {
  CALLERS,
  callerNamed,
  contractPolicy,
  expectedChange,
  insertProjects,
  insertTeachers,
  jwtHeaders,
  mayRead,
  PROJECTS,
  projectGlobalId,
  type Who,
} from "./support";

const ALL_IDS = PROJECTS.map((p) => p.project_id);
const visibleTo = (who: Who) => PROJECTS.filter((p) => mayRead(who, p)).map((p) => p.project_id);
const byCaller = CALLERS.map((who) => [who.name, who] as const);

/** The project as stored: what a refused change must leave as it was. */
async function stored(t: TestApp, project_id: number) {
  const doc = await t.db.models.Project.findOne({ project_id }).lean();
  return { project_status: doc!.project_status, teacher_id: doc!.teacher_id, revision: doc!.revision };
}

describe("row-level access: roles × companies × operations", () => {
  let t: TestApp;
  let subgraph: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, config: { accessPolicy: contractPolicy(), subscriptionPollMs: 50 } });
    subgraph = await startTestApp({
      db: t.db,
      auth: JWT_AUTH,
      config: { accessPolicy: contractPolicy(), federation: true },
    });
    await insertTeachers(t.db, [1, 2, 3]);
    await insertProjects(t.db, PROJECTS);
    await t.db.models.Counter.updateOne({ _id: "projects" }, { $set: { seq: PROJECTS.length } }, { upsert: true });
  });
  afterAll(async () => {
    await subgraph.app.close();
    await t.close();
  });

  it.each(byCaller)(
    "when %s reads each project by id (project, node, nodes, _entities by both keys), then exactly the readable ones answer and the others are null",
    async (_name, who) => {
      const headers = await jwtHeaders(who);
      const expected = ALL_IDS.map((id, i) => (mayRead(who, PROJECTS[i]) ? id : null));

      const byId: (number | null)[] = [];
      const byNode: (number | null)[] = [];
      for (const id of ALL_IDS) {
        const one = await t.gql(AccessProjectDocument, { projectId: id }, headers);
        expect(one.errors).toBeUndefined();
        byId.push(one.data!.project?.project_id ?? null);
        const node = await t.gql(AccessNodeDocument, { id: projectGlobalId(id) }, headers);
        expect(node.errors).toBeUndefined();
        byNode.push(node.data!.node && "project_id" in node.data!.node ? node.data!.node.project_id : null);
      }
      const nodes = await t.gql(AccessNodesDocument, { ids: ALL_IDS.map(projectGlobalId) }, headers);
      const entities = async (representations: object[]) => {
        const res = await subgraph.http<GraphQLBody<{ _entities: ({ project_id: number } | null)[] }>>(
          "POST",
          "/graphql",
          { body: { query: ENTITIES_QUERY, variables: { representations } }, headers },
        );
        expect(res.body.errors).toBeUndefined();
        return res.body.data!._entities.map((e) => e?.project_id ?? null);
      };

      expect(byId).toEqual(expected);
      expect(byNode).toEqual(expected);
      expect(nodes.data!.nodes.map((n) => (n && "project_id" in n ? n.project_id : null))).toEqual(expected);
      expect(await entities(ALL_IDS.map((id) => ({ __typename: "Project", id: projectGlobalId(id) })))).toEqual(
        expected,
      );
      expect(await entities(ALL_IDS.map((project_id) => ({ __typename: "Project", project_id })))).toEqual(expected);
    },
  );

  it.each(byCaller)(
    "when %s lists projects (pages with total, connections with totalCount and both directions, by company, through each teacher), then it sees exactly the readable ones and counts only those",
    async (_name, who) => {
      const headers = await jwtHeaders(who);
      const visible = visibleTo(who);

      const page = await t.gql(AccessProjectPageDocument, {}, headers);
      expect(page.data!.projects.items.map((p) => p.project_id)).toEqual(visible);
      expect(page.data!.projects.total).toBe(visible.length);

      for (const company_id of [1, 2, 3]) {
        const inCompany = PROJECTS.filter((p) => p.company_id === company_id && visible.includes(p.project_id));
        const filtered = await t.gql(AccessProjectPageDocument, { filter: { company_id } }, headers);
        expect(filtered.data!.projects.items.map((p) => p.project_id)).toEqual(inCompany.map((p) => p.project_id));
        expect(filtered.data!.projects.total).toBe(inCompany.length);
        const connection = await t.gql(
          AccessProjectsConnectionDocument,
          { filter: { company_id }, first: 10 },
          headers,
        );
        expect(connection.data!.projectsConnection.totalCount).toBe(inCompany.length);
      }

      const first = await t.gql(AccessProjectsConnectionDocument, { first: 100 }, headers);
      expect(first.data!.projectsConnection.nodes.map((p) => p.project_id)).toEqual(visible);
      expect(first.data!.projectsConnection.totalCount).toBe(visible.length);
      expect(first.data!.projectsConnection.pageInfo.hasNextPage).toBe(false);
      const last = await t.gql(AccessProjectsConnectionDocument, { last: 2 }, headers);
      expect(last.data!.projectsConnection.nodes.map((p) => p.project_id)).toEqual(visible.slice(-2));
      expect(last.data!.projectsConnection.pageInfo.hasPreviousPage).toBe(visible.length > 2);

      for (const teacherId of [1, 2, 3]) {
        const theirs = PROJECTS.filter((p) => p.teacher_id === teacherId && visible.includes(p.project_id)).map(
          (p) => p.project_id,
        );
        const res = await t.gql(AccessTeacherProjectsDocument, { teacherId, first: 100 }, headers);
        expect(res.errors).toBeUndefined();
        expect(res.data!.teacher!.projects.map((p) => p.project_id)).toEqual(theirs);
        expect(res.data!.teacher!.projectsConnection.nodes.map((p) => p.project_id)).toEqual(theirs);
        expect(res.data!.teacher!.projectsConnection.totalCount).toBe(theirs.length);
      }

      for (const id of ALL_IDS) {
        const history = await t.gql(AccessProjectHistoryDocument, { projectId: id }, headers);
        expect(history.data!.project?.project_id ?? null).toBe(visible.includes(id) ? id : null);
      }
    },
  );

  describe("live updates over WebSocket", () => {
    type Event = ProjectChangesSubscription["projectChanges"];
    const clients: LiveClient[] = [];
    const connect = async (who: Who) => {
      const { authorization } = await jwtHeaders(who);
      const client = liveClient(t, who.role ? { authorization, "x-user-role": who.role } : { authorization });
      clients.push(client);
      return client;
    };
    afterAll(() => Promise.all(clients.map((c) => c.dispose())));

    /** Waits for `n` events, then for what the server may still be sending, and answers every event's project. */
    async function settled(sub: Subscription<{ projectChanges: Event }>, n: number): Promise<number[]> {
      await sub.received(n);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return sub.events.map((e) => e.projectChanges.project_id);
    }

    it("when an admin changes every project twice, then each caller's projectChanges stream (live, then replayed from a cursor) holds exactly the changes of the projects it may read, in commit order", async () => {
      const admin = await jwtHeaders(callerNamed("root"));
      // A cursor of the log's end now, so every stream starts at the same place whenever its subscription runs.
      const warm = await t.gql(UpdateProjectStatusDocument, { projectId: 1, input: { project_status: "warm" } }, admin);
      const revision = warm.data!.updateProjectStatus.data!.revision;
      const own = subscribe(await connect(callerNamed("root")), ProjectChangedDocument, {
        projectId: 1,
        afterRevision: revision - 1,
      });
      const start = (await own.received(1))[0].projectChanged.cursor;
      own.stop();
      const streams = new Map<Who, Subscription<{ projectChanges: Event }>>();
      for (const who of CALLERS)
        streams.set(who, subscribe(await connect(who), ProjectChangesDocument, { after: start }));

      for (const pass of ["first", "second"]) {
        for (const projectId of ALL_IDS) {
          const res = await t.gql(
            UpdateProjectStatusDocument,
            { projectId, input: { project_status: `${pass}-pass` } },
            admin,
          );
          expect(res.data!.updateProjectStatus.success).toBe(true);
        }
      }
      const root = streams.get(callerNamed("root"))!;
      expect(await settled(root, 12)).toEqual([...ALL_IDS, ...ALL_IDS]);
      const firstOfPass = root.events[0].projectChanges.cursor;

      for (const who of CALLERS) {
        const visible = visibleTo(who);
        const events = await settled(streams.get(who)!, 2 * visible.length);
        expect({ who: who.name, events }).toEqual({ who: who.name, events: [...visible, ...visible] });
      }

      // Replayed from the cursor of the first change of the first pass: the eleven after it, as each may read them.
      for (const who of CALLERS) {
        const replay = subscribe(await connect(who), ProjectChangesDocument, { after: firstOfPass });
        const expected = [...ALL_IDS.slice(1), ...ALL_IDS].filter((id) => visibleTo(who).includes(id));
        const events = await settled(replay, expected.length);
        expect({ who: who.name, events }).toEqual({ who: who.name, events: expected });
        replay.stop();
      }
    });

    it.each(byCaller)(
      "when %s subscribes to each project's changes from its first revision, then a readable one replays its revisions and an unreadable one is NOT_FOUND",
      async (_name, who) => {
        const admin = await jwtHeaders(callerNamed("root"));
        const live = await connect(who);
        for (const project of PROJECTS) {
          const history = await t.gql(AccessProjectHistoryDocument, { projectId: project.project_id }, admin);
          const revisions = history.data!.project!.history.items.map((c) => c.revision).reverse();
          const sub = subscribe(live, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
          if (mayRead(who, project)) {
            const events = await sub.received(revisions.length);
            expect(events.map((e) => e.projectChanged.change.revision)).toEqual(revisions);
          } else {
            const errors = (await sub.failed()) as { extensions?: { code?: string } }[];
            expect(errors[0].extensions?.code).toBe("NOT_FOUND");
          }
          sub.stop();
        }
      },
    );
  });

  it.each(byCaller)(
    "when %s changes each project's status through GraphQL and REST, then it succeeds inside its change rule, is FORBIDDEN outside it and NOT_FOUND where it may not read, and a refusal changes nothing",
    async (_name, who) => {
      const headers = await jwtHeaders(who);
      for (const project of PROJECTS) {
        const expected = expectedChange(who, project);
        for (const transport of ["GraphQL", "REST"] as const) {
          const before = await stored(t, project.project_id);
          const project_status = `${transport}-${who.sub}-${before.revision}`;
          let outcome: string;
          if (transport === "GraphQL") {
            const res = await t.gql(
              UpdateProjectStatusDocument,
              { projectId: project.project_id, input: { project_status } },
              headers,
            );
            const payload = res.data!.updateProjectStatus;
            outcome = payload.success ? "success" : payload.code!;
            if (!payload.success) expect(payload.errors[0].field).toBe("projectId");
          } else {
            const res = await t.http("PUT", `/projects/${project.project_id}/updateStatus`, {
              body: { project_status },
              headers,
            });
            outcome = res.body.success ? "success" : res.body.code!;
            expect(res.status).toBe({ success: 200, FORBIDDEN: 403, NOT_FOUND: 404 }[expected]);
          }

          expect({ project: project.project_id, transport, outcome }).toEqual({
            project: project.project_id,
            transport,
            outcome: expected,
          });
          const after = await stored(t, project.project_id);
          expect(after).toEqual(
            expected === "success" ? { ...before, project_status, revision: before.revision + 1 } : before,
          );
        }
      }
    },
  );

  it.each(byCaller)(
    "when %s assigns another teacher to each project through GraphQL and REST, then the role table decides first, then the row rules, and a refusal changes nothing",
    async (_name, who) => {
      const headers = await jwtHeaders(who);
      for (const project of PROJECTS) {
        const expected = !who.role
          ? "UNAUTHORIZED"
          : who.role === "student"
            ? "FORBIDDEN"
            : expectedChange(who, project);
        for (const transport of ["GraphQL", "REST"] as const) {
          const before = await stored(t, project.project_id);
          let outcome: string;
          if (transport === "GraphQL") {
            const res = await t.gql(
              AssignTeacherDocument,
              { projectId: project.project_id, input: { new_teacher_id: 3 } },
              headers,
            );
            const payload = res.data!.assignTeacher;
            outcome = payload.success ? "success" : payload.code!;
          } else {
            const res = await t.http("PUT", `/projects/${project.project_id}/teacher`, {
              body: { new_teacher_id: 3 },
              headers,
            });
            outcome = res.body.success ? "success" : res.body.code!;
          }

          expect({ project: project.project_id, transport, outcome }).toEqual({
            project: project.project_id,
            transport,
            outcome: expected,
          });
          const after = await stored(t, project.project_id);
          if (expected !== "success") {
            expect(after).toEqual(before);
            continue;
          }
          expect(after).toEqual({ ...before, teacher_id: 3, revision: before.revision + 1 });
          // Back to the project's own teacher for the next caller (teacher_id null cannot be assigned through the API).
          await t.db.models.Project.updateOne(
            { project_id: project.project_id },
            { $set: { teacher_id: project.teacher_id } },
          );
        }
      }
    },
  );

  it.each(byCaller)(
    "when %s creates a project in each company through GraphQL and REST, then only a project it may read is created (FORBIDDEN on company_id otherwise), with created_by its sub",
    async (_name, who) => {
      const headers = await jwtHeaders(who);
      for (const company_id of [1, 2, 3]) {
        const expected =
          who.role !== "student" && who.role !== "admin"
            ? "UNAUTHORIZED"
            : mayRead(who, { company_id, created_by: who.sub, teacher_id: null })
              ? "success"
              : "FORBIDDEN";
        for (const transport of ["GraphQL", "REST"] as const) {
          const input = {
            project_name: `By ${who.name} in ${company_id} over ${transport}`,
            project_desc: "Row rules",
            company_id,
            project_status: "proposed",
            start_date: "2026-01-01",
            end_date: "2026-02-01",
          };
          const count = await t.db.models.Project.countDocuments();
          let outcome: string;
          let field: string | null | undefined;
          let created: { created_by?: string | null; company_id?: number } | null | undefined;
          if (transport === "GraphQL") {
            const payload = (await t.gql(CreateProjectDocument, { input }, headers)).data!.createProject;
            outcome = payload.success ? "success" : payload.code!;
            field = payload.errors[0]?.field;
            created = payload.data;
          } else {
            const res = await t.http<{ success: boolean; code?: string; errors?: { field: string | null }[] }>(
              "POST",
              "/projects",
              { body: input, headers },
            );
            outcome = res.body.success ? "success" : res.body.code!;
            field = res.body.errors?.[0]?.field;
            created = (res.body as { data?: typeof created }).data;
            if (outcome === "FORBIDDEN") expect(res.status).toBe(403);
          }

          expect({ company_id, transport, outcome }).toEqual({ company_id, transport, outcome: expected });
          expect(await t.db.models.Project.countDocuments()).toBe(count + (expected === "success" ? 1 : 0));
          if (expected === "success") expect(created).toMatchObject({ company_id, created_by: who.sub });
          if (expected === "FORBIDDEN") expect(field).toBe("company_id");
        }
      }
    },
  );
});
