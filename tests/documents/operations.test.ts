// What a request can get wrong about which operation of its document runs: an operationName no operation has,
// several operations and no operationName, an operationName that is not a string. Each is the client's mistake: a
// 400 (BAD_REQUEST) in graphql-js's own words, on every path a document takes (POST, GET, WebSocket, Apollo's
// automatic persisted queries, trusted documents), nothing runs, and /metrics counts no internal error.
import { createHash } from "node:crypto";
import { buildSchema, execute, parse, type ExecutionResult } from "graphql";
import WebSocket from "ws";
import { parseTrustedDocuments } from "../../src/graphql/trusted-documents";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { liveClient, wsUrl } from "../helpers/live";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import type { Database } from "../../src/persistence";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const id = (document: string) => `sha256:${sha256(document)}`;

const ONE = "query A { projectStatuses }";
const TWO = "query A { projectStatuses } query B { teachers(limit: 1) { total } }";
const ADD = (name: string) =>
  `mutation Add { createTeacher(input: { teacher_name: "${name}" }) { success } } query Count { teachers(limit: 1) { total } }`;
const CHANGES = "subscription Changes { projectChanges { project_id } }";
const TWO_CHANGES = `${CHANGES} subscription Others { projectChanges { cursor } }`;

/** graphql-js's own answer (its execute()) when it cannot pick the operation: the words the service must use. */
function graphqlJsSays(document: string, operationName?: string | null): string {
  const schema = buildSchema("type Query { projectStatuses: [String!]! } type Subscription { x: Int }");
  const result = execute({ schema, document: parse(document), operationName }) as ExecutionResult;
  return result.errors![0].message;
}

const ADMIN = { "x-user-role": "admin" };
type Body = GraphQLBody<{ projectStatuses?: string[]; teachers?: { total: number } }>;

/** The answer to a request whose operation cannot be picked: 400, BAD_REQUEST, graphql-js's message, no data. */
const unresolved = (message: string) => ({
  status: 400,
  body: { errors: [{ message, extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } }] },
});

/** The error of a POST whose operationName is not a string (Apollo's words). */
const OPERATION_NAME_NOT_A_STRING = expect.objectContaining({
  message: "`operationName` in a POST body must be a string if provided.",
  extensions: expect.objectContaining({ code: "BAD_REQUEST" }),
});

const post = (t: TestApp, body: unknown) => t.http<Body>("POST", "/graphql", { body, headers: ADMIN });

function get(t: TestApp, params: Record<string, string>) {
  return t.http<Body>("GET", `/graphql?${new URLSearchParams(params).toString()}`, { headers: ADMIN });
}

async function internalErrors(t: TestApp): Promise<string[]> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return [...text.matchAll(/^graphql_operations_total\{operation="([^"]*)",outcome="INTERNAL_SERVER_ERROR"\}/gm)].map(
    (match) => match[1],
  );
}

/** A subscribe message over graphql-ws's client: its errors (or "next"/"completed" if it ran). */
function subscribeErrors(t: TestApp, payload: Record<string, unknown>): Promise<unknown> {
  const live = liveClient(t, ADMIN);
  return new Promise<unknown>((resolve) => {
    live.client.subscribe(payload as { query: string }, {
      next: () => resolve("next"),
      error: resolve,
      complete: () => resolve("completed"),
    });
  }).finally(() => live.dispose());
}

/** A subscribe message sent as it is (graphql-ws's client checks its own), and how the socket closes. */
async function rawSubscribe(t: TestApp, payload: Record<string, unknown>): Promise<{ code: number; reason: string }> {
  const ws = new WebSocket(wsUrl(t), "graphql-transport-ws");
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise((resolve) => ws.on("open", resolve));
  const acknowledged = new Promise((resolve) => ws.on("message", resolve));
  ws.send(JSON.stringify({ type: "connection_init", payload: ADMIN }));
  await acknowledged;
  ws.send(JSON.stringify({ id: "1", type: "subscribe", payload }));
  return closed;
}

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await dropTestDatabase(db);
});

describe("the operation a request names, with documents sent as text and automatic persisted queries", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ db });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a POST names an operation its document does not have, then it is a 400 in graphql-js's words", async () => {
    expect(graphqlJsSays(ONE, "B")).toBe('Unknown operation named "B".');

    expect(await post(t, { query: ONE, operationName: "B" })).toEqual(unresolved(graphqlJsSays(ONE, "B")));
    expect(await post(t, { query: TWO, operationName: "C" })).toEqual(unresolved(graphqlJsSays(TWO, "C")));
    expect(await post(t, { query: "{ projectStatuses }", operationName: "A" })).toEqual(
      unresolved(graphqlJsSays("{ projectStatuses }", "A")),
    );
    expect(await post(t, { query: ONE, operationName: "" })).toEqual(unresolved(graphqlJsSays(ONE, "")));
  });

  it("when a POST sends several operations and names none, then it is a 400 in graphql-js's words", async () => {
    expect(graphqlJsSays(TWO)).toBe("Must provide operation name if query contains multiple operations.");

    expect(await post(t, { query: TWO })).toEqual(unresolved(graphqlJsSays(TWO)));
    expect(await post(t, { query: TWO, operationName: null })).toEqual(unresolved(graphqlJsSays(TWO)));
  });

  it("when the named operation exists, then it runs, and only it", async () => {
    expect(await post(t, { query: TWO, operationName: "A" })).toEqual({
      status: 200,
      body: { data: { projectStatuses: [] } },
    });
    expect(await post(t, { query: ONE, operationName: "A" })).toEqual({
      status: 200,
      body: { data: { projectStatuses: [] } },
    });
  });

  it("when a POST's operationName is not a string, then it is a 400 BAD_REQUEST saying so", async () => {
    for (const operationName of [5, true, ["A"], { name: "A" }]) {
      const res = await post(t, { query: ONE, operationName });

      expect(res).toEqual({ status: 400, body: { errors: [OPERATION_NAME_NOT_A_STRING] } });
    }
  });

  it("when a mutation's request names no operation it has, then nothing is written", async () => {
    const name = `Never ${Date.now()}`;

    expect(await post(t, { query: ADD(name), operationName: "Nope" })).toEqual(
      unresolved(graphqlJsSays(ADD(name), "Nope")),
    );
    expect(await post(t, { query: ADD(name) })).toEqual(unresolved(graphqlJsSays(ADD(name))));

    expect(await db.models.Teacher.countDocuments({ teacher_name: name })).toBe(0);
  });

  it("when a GET names an operation its document does not have, or none of several, then it is a 400 in graphql-js's words", async () => {
    expect(await get(t, { query: ONE, operationName: "B" })).toEqual(unresolved(graphqlJsSays(ONE, "B")));
    expect(await get(t, { query: TWO })).toEqual(unresolved(graphqlJsSays(TWO)));
    // A query string has only strings: a number is an unknown name.
    expect(await get(t, { query: ONE, operationName: "5" })).toEqual(unresolved(graphqlJsSays(ONE, "5")));
    expect(await get(t, { query: TWO, operationName: "B" })).toEqual({
      status: 200,
      body: { data: { teachers: { total: expect.any(Number) } } },
    });
  });

  it("when an automatic persisted query names an operation its document does not have, then it is a 400 in graphql-js's words, and nothing is registered", async () => {
    const query = "query Persisted { projectStatuses }";
    const hash = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } };

    expect(await post(t, { query, ...hash, operationName: "B" })).toEqual(unresolved(graphqlJsSays(query, "B")));
    expect((await post(t, hash)).body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_FOUND");

    expect(await post(t, { query, ...hash, operationName: "Persisted" })).toEqual({
      status: 200,
      body: { data: { projectStatuses: [] } },
    });
    expect(await post(t, { ...hash, operationName: "B" })).toEqual(unresolved(graphqlJsSays(query, "B")));
    expect(await post(t, { ...hash, operationName: 7 })).toEqual({
      status: 400,
      body: { errors: [OPERATION_NAME_NOT_A_STRING] },
    });
    const several = `${query} query Other { projectStatuses }`;
    const severalHash = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(several) } } };
    expect(await post(t, { query: several, ...severalHash })).toEqual(unresolved(graphqlJsSays(several)));
  });

  it("when a WebSocket subscribe names an operation its document does not have, or none of several, then it fails with BAD_REQUEST in graphql-js's words", async () => {
    expect(await subscribeErrors(t, { query: CHANGES, operationName: "B" })).toEqual([
      { message: graphqlJsSays(CHANGES, "B"), extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } },
    ]);
    expect(await subscribeErrors(t, { query: TWO_CHANGES })).toEqual([
      { message: graphqlJsSays(TWO_CHANGES), extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } },
    ]);
    expect(await subscribeErrors(t, { query: ONE, operationName: "B" })).toEqual([
      { message: graphqlJsSays(ONE, "B"), extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } },
    ]);
  });

  it("when a WebSocket subscribe's operationName is not a string, then the socket closes with 4400, as graphql-ws's protocol closes on an invalid message", async () => {
    expect(await rawSubscribe(t, { query: CHANGES, operationName: 5 })).toEqual({
      code: 4400,
      reason: "Invalid message received",
    });
    expect(await rawSubscribe(t, { query: CHANGES, operationName: ["Changes"] })).toEqual({
      code: 4400,
      reason: "Invalid message received",
    });
  });

  it("when these mistakes have been answered, then /metrics counts none as an internal error", async () => {
    await post(t, { query: ONE, operationName: "B" });
    await get(t, { query: TWO });

    expect(await internalErrors(t)).toEqual([]);
  });
});

describe("the operation a request names, with trusted documents", () => {
  const MANIFEST = JSON.stringify(
    Object.fromEntries([ONE, TWO, CHANGES, TWO_CHANGES].map((document) => [id(document), document])),
  );
  let only: TestApp;
  let alongside: TestApp;
  beforeAll(async () => {
    const trustedDocuments = parseTrustedDocuments(MANIFEST);
    only = await startTestApp({ db, config: { trustedDocuments, trustedDocumentsOnly: true } });
    alongside = await startTestApp({ db, config: { trustedDocuments, trustedDocumentsOnly: false } });
  });
  afterAll(async () => {
    await only.close();
    await alongside.close();
  });

  it("when a trusted document is named with an operation it does not have, or none of several, then it is a 400 in graphql-js's words", async () => {
    for (const t of [only, alongside]) {
      expect(await post(t, { documentId: id(ONE), operationName: "B" })).toEqual(unresolved(graphqlJsSays(ONE, "B")));
      expect(await post(t, { documentId: id(TWO) })).toEqual(unresolved(graphqlJsSays(TWO)));
      expect(
        await post(t, {
          extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TWO) } },
          operationName: "C",
        }),
      ).toEqual(unresolved(graphqlJsSays(TWO, "C")));
      expect(await get(t, { documentId: id(ONE), operationName: "B" })).toEqual(unresolved(graphqlJsSays(ONE, "B")));
      expect(await get(t, { documentId: id(TWO) })).toEqual(unresolved(graphqlJsSays(TWO)));
      expect(await post(t, { documentId: id(TWO), operationName: "A" })).toEqual({
        status: 200,
        body: { data: { projectStatuses: [] } },
      });
    }
  });

  it("when a trusted document is named with an operationName that is not a string, then it is a 400 BAD_REQUEST saying so", async () => {
    for (const t of [only, alongside]) {
      const res = await post(t, { documentId: id(ONE), operationName: 1 });

      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([OPERATION_NAME_NOT_A_STRING]);
    }
  });

  it("when only trusted documents run, then a text with a wrong operationName is refused as untrusted first", async () => {
    expect(await post(only, { query: ONE, operationName: "B" })).toEqual({
      status: 400,
      body: { errors: [expect.objectContaining({ extensions: { code: "BAD_REQUEST", reason: "NOT_TRUSTED" } })] },
    });
  });

  it("when a WebSocket subscribe names a trusted document with an operation it does not have, or none of several, then it fails with BAD_REQUEST in graphql-js's words", async () => {
    for (const t of [only, alongside]) {
      expect(await subscribeErrors(t, { query: "", documentId: id(CHANGES), operationName: "B" })).toEqual([
        { message: graphqlJsSays(CHANGES, "B"), extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } },
      ]);
      expect(await subscribeErrors(t, { query: "", documentId: id(TWO_CHANGES) })).toEqual([
        { message: graphqlJsSays(TWO_CHANGES), extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } },
      ]);
      expect(await rawSubscribe(t, { query: "", documentId: id(CHANGES), operationName: 2 })).toEqual({
        code: 4400,
        reason: "Invalid message received",
      });
    }
  });

  it("when these mistakes have been answered, then /metrics counts none as an internal error", async () => {
    expect(await internalErrors(only)).toEqual([]);
    expect(await internalErrors(alongside)).toEqual([]);
  });
});
