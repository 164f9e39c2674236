// Where the claims come from, and the cases that must fail closed. In header mode X-User-Claims carries them (a
// JSON object, on HTTP and in a WebSocket's connection_init), X-User-Id is `sub`; in jwt mode the token's own claims,
// which `npm run token -- --claim` adds. A role the file does not name, an operation a role's entry leaves out, a
// claim missing or of another type, or too many values, match no project. Without ACCESS_POLICY nothing changes:
// X-User-Claims is not even read.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { decodeJwt } from "jose";
import { parseAccessPolicy } from "../../src/components/projects";
import {
  AccessProjectPageDocument,
  AccessProjectDocument,
  CreateProjectDocument,
  ProjectChangedDocument,
  ProjectChangesDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { startTestApp, type Headers, type TestApp } from "../helpers/app";
import { liveClient, subscribe } from "../helpers/live";
import { JWT_AUTH } from "../helpers/tokens";
import {
  callerNamed,
  contractPolicy,
  headerModeHeaders,
  insertProjects,
  insertTeachers,
  jwtHeaders,
  PROJECTS,
  type Who,
} from "./support";

const REPO = path.resolve(__dirname, "../..");
const ALICE = callerNamed("alice");
const idsOf = (page: { items: { project_id: number }[] }) => page.items.map((p) => p.project_id);

describe("claims and the cases that fail closed", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { accessPolicy: contractPolicy(), subscriptionPollMs: 50 } });
    await insertTeachers(t.db, [1, 2]);
    await insertProjects(t.db, PROJECTS);
    await t.db.models.Counter.updateOne({ _id: "projects" }, { $set: { seq: PROJECTS.length } }, { upsert: true });
  });
  afterAll(() => t.close());

  async function pageAs(app: TestApp, headers: Headers) {
    return app.gql(AccessProjectPageDocument, {}, headers);
  }

  it("when a header-mode caller sends X-User-Claims, then its rules read them, with X-User-Id as sub", async () => {
    const page = await pageAs(t, headerModeHeaders(ALICE));
    expect(idsOf(page.data!.projects)).toEqual([1, 2, 3, 4]);
    const own = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: 1, input: { project_status: "mine" } },
      headerModeHeaders(ALICE),
    );
    expect(own.data!.updateProjectStatus.success).toBe(true);
    const other = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: 2, input: { project_status: "not mine" } },
      headerModeHeaders(ALICE),
    );
    expect(other.data!.updateProjectStatus.code).toBe("FORBIDDEN");
  });

  it.each([
    ["not JSON", "company_ids=1,2", 'X-User-Claims must be a JSON object of claims, e.g. {"company_ids":[1,2]}'],
    ["an array", "[1, 2]", "X-User-Claims must be a JSON object of claims"],
    [
      "an object holding sub",
      '{"sub":"bob","company_ids":[2]}',
      "X-User-Claims must not hold sub: X-User-Id names the caller",
    ],
  ])("when X-User-Claims is %s, then the caller is UNAUTHORIZED", async (_, claims, message) => {
    const res = await pageAs(t, { ...headerModeHeaders(ALICE), "x-user-claims": claims });
    expect(res.errors![0].extensions?.code).toBe("UNAUTHORIZED");
    expect(res.errors![0].message).toContain(message);
  });

  it("when a header-mode caller sends no X-User-Claims or no X-User-Id, then rules naming those claims match nothing", async () => {
    const { "x-user-claims": _claims, ...withoutClaims } = headerModeHeaders(ALICE);
    expect((await pageAs(t, withoutClaims)).data!.projects).toMatchObject({ total: 0, items: [] });
    const { "x-user-id": _id, ...withoutId } = headerModeHeaders(ALICE);
    expect(idsOf((await pageAs(t, withoutId)).data!.projects)).toEqual([1, 2, 3, 4]);
    const change = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: 1, input: { project_status: "x" } },
      withoutId,
    );
    expect(change.data!.updateProjectStatus.code).toBe("FORBIDDEN");
  });

  it("when a header-mode WebSocket sends x-user-claims (as an object) in connection_init, then its stream holds only what they let it read", async () => {
    const bob = { "x-user-role": "student", "x-user-id": "bob", "x-user-claims": { company_ids: [2] } };
    const live = liveClient(t, bob);
    try {
      // A cursor of the log's end now (a change of a project bob reads), so the stream starts there.
      const warm = await t.gql(
        UpdateProjectStatusDocument,
        { projectId: 3, input: { project_status: "warm" } },
        {
          "x-user-role": "admin",
        },
      );
      const revision = warm.data!.updateProjectStatus.data!.revision;
      const own = subscribe(live, ProjectChangedDocument, { projectId: 3, afterRevision: revision - 1 });
      const after = (await own.received(1))[0].projectChanged.cursor;
      own.stop();
      const sub = subscribe(live, ProjectChangesDocument, { after });
      for (const projectId of [1, 2, 3, 4, 5, 6]) {
        await t.gql(
          UpdateProjectStatusDocument,
          { projectId, input: { project_status: `live-${projectId}` } },
          {
            "x-user-role": "admin",
          },
        );
      }
      const events = await sub.received(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(events.map((e) => e.projectChanges.project_id)).toEqual([3, 4]);
    } finally {
      await live.dispose();
    }
  });

  it("when the acting role has no entry in the file, or its entry leaves an operation out, then that operation matches no project", async () => {
    const policy = parseAccessPolicy(
      JSON.stringify({
        projects: { student: { read: { company_id: "$company_ids" } }, admin: { read: {}, change: {} } },
      }),
    );
    const app = await startTestApp({ db: t.db, config: { accessPolicy: policy } });
    try {
      const teacher = headerModeHeaders(callerNamed("ted"));
      expect((await pageAs(app, teacher)).data!.projects).toMatchObject({ total: 0, items: [] });
      expect((await app.gql(AccessProjectDocument, { projectId: 1 }, teacher)).data!.project).toBeNull();
      const byTeacher = await app.gql(
        UpdateProjectStatusDocument,
        { projectId: 1, input: { project_status: "t" } },
        teacher,
      );
      expect(byTeacher.data!.updateProjectStatus.code).toBe("NOT_FOUND");

      // Students read their companies but have no change rule: FORBIDDEN where they read, NOT_FOUND elsewhere.
      const student = headerModeHeaders(ALICE);
      expect(idsOf((await pageAs(app, student)).data!.projects)).toEqual([1, 2, 3, 4]);
      const own = await app.gql(UpdateProjectStatusDocument, { projectId: 1, input: { project_status: "s" } }, student);
      expect(own.data!.updateProjectStatus.code).toBe("FORBIDDEN");
      const elsewhere = await app.gql(
        UpdateProjectStatusDocument,
        { projectId: 5, input: { project_status: "s" } },
        student,
      );
      expect(elsewhere.data!.updateProjectStatus.code).toBe("NOT_FOUND");
    } finally {
      await app.app.close();
    }
  });

  it.each<[string, Record<string, unknown>]>([
    ["no company_ids claim", {}],
    ["company_ids as text", { company_ids: ["1", "2"] }],
    ["company_ids as an object", { company_ids: { 1: true } }],
    ["company_ids null", { company_ids: null }],
    ["company_ids out of range", { company_ids: [0, -1, 2147483648, 1.5] }],
    ["more than 1,000 company_ids", { company_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }],
  ])(
    "when a token's claim is %s, then the rule naming it matches no project, and nothing can be created",
    async (_, claims) => {
      const jwt = await startTestApp({ db: t.db, auth: JWT_AUTH, config: { accessPolicy: contractPolicy() } });
      try {
        const who: Who = { name: "alice", role: "student", sub: "alice", claims };
        const headers = await jwtHeaders(who);
        expect((await pageAs(jwt, headers)).data!.projects).toMatchObject({ total: 0, items: [] });
        const input = {
          project_name: `Unreadable ${JSON.stringify(claims).length}`,
          project_desc: "d",
          company_id: 1,
          project_status: "proposed",
          start_date: "2026-01-01",
          end_date: "2026-01-02",
        };
        const created = await jwt.gql(CreateProjectDocument, { input }, headers);
        expect(created.data!.createProject).toMatchObject({ success: false, code: "FORBIDDEN" });
      } finally {
        await jwt.app.close();
      }
    },
  );

  it("when ACCESS_POLICY is unset, then X-User-Claims is not read (not even a malformed one) and every project is read as before", async () => {
    const app = await startTestApp({ db: t.db });
    try {
      const res = await pageAs(app, { ...headerModeHeaders(ALICE), "x-user-claims": "not json" });
      expect(res.errors).toBeUndefined();
      expect(idsOf(res.data!.projects)).toEqual(PROJECTS.map((p) => p.project_id));
    } finally {
      await app.app.close();
    }
  });

  it("when npm run token is given --claim options, then the token carries them (JSON values, else text) and refuses its own claims", () => {
    const mint = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(REPO, "dist/scripts/mint-token.js"), ...args], {
        env: { PATH: process.env.PATH, AUTH_JWT_SECRET: "s".repeat(32) },
        encoding: "utf8",
        timeout: 20_000,
      });
    const ok = mint("--sub", "alice", "--roles", "student", "--claim", "company_ids=[1,2]", "--claim", "team=blue");
    expect(ok.status).toBe(0);
    expect(decodeJwt(ok.stdout.trim())).toMatchObject({
      sub: "alice",
      roles: ["student"],
      company_ids: [1, 2],
      team: "blue",
    });
    const reserved = mint("--claim", "sub=bob");
    expect(reserved.status).toBe(1);
    expect(reserved.stderr.trim()).toBe("--claim sub: set by the token itself (use --sub, --roles or --expires)");
    const malformed = mint("--claim", "company_ids");
    expect(malformed.status).toBe(1);
    expect(malformed.stderr.trim()).toMatch(/^--claim "company_ids": write --claim name=value/);
  });
});
