// Persisted documents: trusted documents (TRUSTED_DOCUMENTS, named by documentId "sha256:<hex>" or by Apollo's
// extensions.persistedQuery.sha256Hash) with TRUSTED_DOCUMENTS_ONLY on HTTP and WebSocket alike, and Apollo's
// automatic persisted queries: only authenticated callers register, a hash that does not match is BAD_REQUEST, an
// unknown hash is PERSISTED_QUERY_NOT_FOUND (the client sends the query again), and no client mistake is an internal
// error in /metrics.
import { createHash } from "node:crypto";
import { parseTrustedDocuments } from "../../src/graphql/trusted-documents";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { liveClient, settle } from "../helpers/live";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import type { Database } from "../../src/persistence";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const STATUSES = "query Statuses { projectStatuses }";
const CREATE_TEACHER =
  "mutation NewTeacher($name: String!) { createTeacher(input: { teacher_name: $name }) { success code data { teacher_id } } }";
const CREATE_PROJECT = `mutation NewProject($input: CreateProjectInput!) {
  createProject(input: $input) { success data { project_id } }
}`;
const CHANGES = "subscription Changes { projectChanges { project_id change { operation actor_role at } } }";
const TRUSTED = [STATUSES, CREATE_TEACHER, CREATE_PROJECT, CHANGES];

/** A manifest as graphql-codegen's client preset writes it: { "sha256:<hex>": "<document>" }. */
const MANIFEST = JSON.stringify(
  Object.fromEntries(TRUSTED.map((document) => [`sha256:${sha256(document)}`, document])),
);
const id = (document: string) => `sha256:${sha256(document)}`;

const ADMIN = { "x-user-role": "admin" };
const AD_HOC = "query AdHoc { teachers(limit: 1) { total } }";

type Body = GraphQLBody<{
  projectStatuses?: string[];
  createTeacher?: { success: boolean; code: string | null; data: { teacher_id: number } | null };
  createProject?: { success: boolean; data: { project_id: number } | null };
  teachers?: { total: number };
}>;

const post = (t: TestApp, body: unknown, headers: Record<string, string> = ADMIN) =>
  t.http<Body>("POST", "/graphql", { body, headers });

async function metricsText(t: TestApp): Promise<string> {
  return (await fetch(`${t.url}/metrics`)).text();
}

/** graphql_operations_total samples as "operation outcome" → count. */
function operationOutcomes(text: string): Record<string, number> {
  const outcomes: Record<string, number> = {};
  for (const match of text.matchAll(/^graphql_operations_total\{operation="([^"]*)",outcome="([^"]*)"\} (\d+)$/gm)) {
    outcomes[`${match[1]} ${match[2]}`] = Number(match[3]);
  }
  return outcomes;
}

const refusal = (reason: string) => ({
  status: 400,
  body: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: "BAD_REQUEST", reason }) })] },
});

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await dropTestDatabase(db);
});

describe("trusted documents only (TRUSTED_DOCUMENTS with TRUSTED_DOCUMENTS_ONLY)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      db,
      config: { trustedDocuments: parseTrustedDocuments(MANIFEST), trustedDocumentsOnly: true },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a POST names a trusted document by documentId, then that document runs", async () => {
    const res = await post(t, { documentId: id(CREATE_TEACHER), variables: { name: "Trusted Ada" } });

    expect(res.status).toBe(200);
    expect(res.body.data!.createTeacher).toEqual({
      success: true,
      code: null,
      data: { teacher_id: expect.any(Number) },
    });
  });

  it("when a GET names a trusted query by documentId in its query string, then it runs", async () => {
    const res = await t.http<Body>("GET", `/graphql?documentId=${encodeURIComponent(id(STATUSES))}`, {
      headers: ADMIN,
    });

    expect(res).toEqual({ status: 200, body: { data: { projectStatuses: [] } } });
  });

  it("when a request names a trusted document by Apollo's sha256Hash, then it runs", async () => {
    const res = await post(t, {
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(STATUSES) } },
    });

    expect(res).toEqual({ status: 200, body: { data: { projectStatuses: [] } } });
  });

  it("when a request sends a document's text instead of its id, even a trusted one, then it is refused with BAD_REQUEST", async () => {
    expect(await post(t, { query: AD_HOC })).toEqual(refusal("NOT_TRUSTED"));
    expect(await post(t, { query: STATUSES })).toEqual(refusal("NOT_TRUSTED"));
    expect(await post(t, { query: "{ broken" })).toEqual(refusal("NOT_TRUSTED"));
  });

  it("when a request names an unknown id or an unknown hash, then it is refused with BAD_REQUEST", async () => {
    expect(await post(t, { documentId: id(AD_HOC) })).toEqual(refusal("NOT_TRUSTED"));
    expect(
      await post(t, { query: AD_HOC, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(AD_HOC) } } }),
    ).toEqual(refusal("NOT_TRUSTED"));
    expect(await post(t, { documentId: sha256(STATUSES) })).toEqual(refusal("MALFORMED_REQUEST"));
  });

  it("when refusals have been answered, then /metrics counts them as BAD_REQUEST and none as an internal error", async () => {
    await post(t, { query: AD_HOC, operationName: "AdHoc" });
    await post(t, { documentId: id(AD_HOC), operationName: "AdHoc" });

    const outcomes = operationOutcomes(await metricsText(t));

    expect(outcomes["AdHoc BAD_REQUEST"]).toBeGreaterThanOrEqual(2);
    expect(Object.keys(outcomes).filter((key) => key.endsWith("INTERNAL_SERVER_ERROR"))).toEqual([]);
  });

  it("when a WebSocket subscription names a trusted document by documentId, then its events arrive; any other document is refused", async () => {
    const live = liveClient(t, { "x-user-role": "admin" });
    try {
      const events: unknown[] = [];
      const trusted = new Promise<void>((resolve, reject) => {
        live.client.subscribe({ query: "", documentId: id(CHANGES) } as unknown as { query: string }, {
          next: (result) => {
            events.push(result);
            resolve();
          },
          error: reject,
          complete: () => undefined,
        });
      });
      const adHoc = new Promise<unknown>((resolve) => {
        live.client.subscribe(
          { query: "subscription AdHoc { projectChanges { cursor } }" },
          { next: () => undefined, error: resolve, complete: () => resolve("completed") },
        );
      });
      await settle(300);
      const created = await post(t, {
        documentId: id(CREATE_PROJECT),
        variables: {
          input: {
            project_name: `Trusted ${Date.now()}`,
            project_desc: "d",
            company_id: 1,
            project_status: "planned",
            start_date: "2026-01-10",
            end_date: "2026-02-10",
          },
        },
      });
      expect(created.body.data!.createProject!.success).toBe(true);

      await trusted;
      expect(events[0]).toEqual({
        data: {
          projectChanges: {
            project_id: created.body.data!.createProject!.data!.project_id,
            change: { operation: "createProject", actor_role: "admin", at: expect.stringMatching(/Z$/) },
          },
        },
      });
      expect(await adHoc).toEqual([
        expect.objectContaining({ extensions: { code: "BAD_REQUEST", reason: "NOT_TRUSTED" } }),
      ]);
    } finally {
      await live.dispose();
    }
  });
});

describe("trusted documents without only-trusted (TRUSTED_DOCUMENTS_ONLY=false)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      db,
      config: { trustedDocuments: parseTrustedDocuments(MANIFEST), trustedDocumentsOnly: false },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when requests name trusted ids or send their own text, then both run; an unknown id is still BAD_REQUEST", async () => {
    expect(await post(t, { documentId: id(STATUSES) })).toEqual({
      status: 200,
      body: { data: { projectStatuses: [] } },
    });
    expect((await post(t, { query: AD_HOC })).body.data!.teachers!.total).toBeGreaterThanOrEqual(0);
    expect(await post(t, { documentId: id(AD_HOC) })).toEqual(refusal("NOT_TRUSTED"));
  });
});

describe("automatic persisted queries (no TRUSTED_DOCUMENTS)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ db });
  });
  afterAll(async () => {
    await t.close();
  });

  const byHash = (query: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } });

  it("when a hash is unknown, then it is PERSISTED_QUERY_NOT_FOUND; once an authenticated caller registers it, the hash alone runs", async () => {
    const query = "query Registered { teachers(limit: 1) { total } }";

    const unknown = await post(t, byHash(query));
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: "PERSISTED_QUERY_NOT_FOUND" }) }),
    ]);

    const registered = await post(t, { query, ...byHash(query) });
    expect(registered.body.errors).toBeUndefined();

    const again = await post(t, byHash(query));
    expect(again).toEqual({ status: 200, body: { data: { teachers: { total: expect.any(Number) } } } });
  });

  it("when a caller that is not authenticated sends a query with its hash, then nothing is registered", async () => {
    const query = "query Anonymous { teachers(limit: 2) { total } }";

    const anonymous = await post(t, { query, ...byHash(query) }, {});
    expect(anonymous.body.errors![0].extensions!.code).toBe("UNAUTHORIZED");

    const afterwards = await post(t, byHash(query));
    expect(afterwards.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: "PERSISTED_QUERY_NOT_FOUND" }) }),
    ]);
  });

  it("when the hash does not match the query, then it is BAD_REQUEST (not INTERNAL_SERVER_ERROR) and nothing is registered", async () => {
    const query = "query Mismatch { teachers(limit: 3) { total } }";

    const res = await post(t, { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256("other") } } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: "BAD_REQUEST" }) }),
    ]);
    expect((await post(t, byHash("other"))).body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_FOUND");
  });

  it("when these client mistakes have been answered, then /metrics counts none as an internal error", async () => {
    await post(t, byHash("query Never { projectStatuses }"));
    await post(t, { query: STATUSES, extensions: { persistedQuery: { version: 1, sha256Hash: sha256("x") } } });

    const outcomes = operationOutcomes(await metricsText(t));

    expect(outcomes["anonymous PERSISTED_QUERY_NOT_FOUND"]).toBeGreaterThanOrEqual(1);
    expect(outcomes["anonymous BAD_REQUEST"]).toBeGreaterThanOrEqual(1);
    expect(Object.keys(outcomes).filter((key) => key.endsWith("INTERNAL_SERVER_ERROR"))).toEqual([]);
  });
});
