// The WebSocket connection itself: authentication in connection_init (jwt and header mode; refusals and a token that
// expires close with 4403 and the reason), the limits (subscriptions per connection, connections per instance, the
// per-caller rate limit shared with HTTP, a slow consumer closed with 1013 and resumable from its cursor), clean
// shutdown (1001 within the bound) and the /metrics counters.
import type { Socket } from "node:net";
import WebSocket from "ws";
import {
  CreateProjectDocument,
  ProjectChangedDocument,
  ProjectChangesDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp, type TestAppOptions } from "../helpers/app";
import { liveClient, subscribe, wsUrl, type LiveClient } from "../helpers/live";
import { bearer, expiredToken, JWT_AUTH, token, wronglySignedToken } from "../helpers/tokens";
import { createProject, projectInput, TEACHER } from "../operations/support";

const AS_STUDENT = { "x-user-role": "student" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("WebSocket connections", () => {
  const apps: TestApp[] = [];
  const clients: LiveClient[] = [];
  async function app(options: TestAppOptions = {}): Promise<TestApp> {
    const t = await startTestApp({ ...options, config: { subscriptionPollMs: 50, ...options.config } });
    apps.push(t);
    return t;
  }
  function client(t: TestApp, params: Parameters<typeof liveClient>[1] = AS_STUDENT): LiveClient {
    const c = liveClient(t, params);
    clients.push(c);
    return c;
  }
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await Promise.all(apps.splice(0).map((t) => t.close()));
  });

  async function metric(t: TestApp, name: string): Promise<number> {
    const res = await t.http<string>("GET", "/metrics");
    const line = res.body.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line ? Number(line.split(" ").at(-1)) : 0;
  }

  /** Subscribes to a project's creation (replayed): resolves once the subscription works. */
  async function works(c: LiveClient, projectId: number): Promise<void> {
    const sub = subscribe(c, ProjectChangedDocument, { projectId, afterRevision: 0 });
    await sub.received(1);
    sub.stop();
  }

  describe("in jwt mode", () => {
    it("when connection_init carries a valid bearer token, then subscriptions run", async () => {
      const t = await app({ auth: JWT_AUTH });
      const created = await t.gql(CreateProjectDocument, { input: projectInput() }, await bearer("admin"));
      const c = client(t, { authorization: `Bearer ${await token(["student"])}` });

      await works(c, created.data!.createProject.data!.project_id);
    });

    it.each([
      ["no token", async () => ({}), /Forbidden: Authorization: Bearer <token> header is required/],
      ["an expired token", async () => ({ authorization: `Bearer ${await expiredToken(["student"])}` }), /expired/],
      [
        "a wrongly signed token",
        async () => ({ authorization: `Bearer ${await wronglySignedToken(["student"])}` }),
        /signature/,
      ],
    ])(
      "when connection_init carries %s, then the socket closes with 4403 Forbidden and the reason",
      async (_what, params, reason) => {
        const t = await app({ auth: JWT_AUTH });
        const c = client(t, await params());
        const sub = subscribe(c, ProjectChangesDocument, {});

        await sub.failed();
        expect(c.closes).toEqual([{ code: 4403, reason: expect.stringMatching(reason) }]);
      },
    );

    it("when the token expires during a subscription, then the socket closes with 4403 and no later event is sent", async () => {
      const t = await app({ auth: JWT_AUTH });
      const admin = await bearer("admin");
      const created = await t.gql(CreateProjectDocument, { input: projectInput() }, admin);
      const projectId = created.data!.createProject.data!.project_id;
      const c = client(t, { authorization: `Bearer ${await token(["student"], { expiresIn: 2 })}` });
      const sub = subscribe(c, ProjectChangedDocument, { projectId, afterRevision: 0 });
      await sub.received(1);

      await sub.failed(10_000);
      await t.gql(UpdateProjectStatusDocument, { projectId, input: { project_status: "later" } }, admin);
      await sleep(300);

      expect(c.closes).toEqual([{ code: 4403, reason: "Forbidden: token has expired; reconnect with a fresh one" }]);
      expect(sub.events).toHaveLength(1);
    });
  });

  it.each([
    ["no X-User-Role", {}, /Forbidden: X-User-Role header is required/],
    ["an unknown role", { "x-user-role": "janitor" }, /Forbidden: X-User-Role "janitor" is not a role/],
  ])("when connection_init in header mode has %s, then the socket closes with 4403", async (_what, params, reason) => {
    const t = await app();
    const c = client(t, params);
    await subscribe(c, ProjectChangesDocument, {}).failed();
    expect(c.closes).toEqual([{ code: 4403, reason: expect.stringMatching(reason) }]);
  });

  it("when a connection asks for more than SUBSCRIPTIONS_PER_CONNECTION subscriptions, then the extra one is refused and the others go on", async () => {
    const t = await app({ config: { subscriptionsPerConnection: 2 } });
    const project = await createProject(t);
    const c = client(t);
    const first = subscribe(c, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
    const second = subscribe(c, ProjectChangesDocument, {});
    await first.received(1);
    const third = subscribe(c, ProjectChangesDocument, {});

    expect(await third.failed()).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^At most 2 subscriptions may be active on one connection/),
        extensions: { code: "BAD_REQUEST", reason: "LIMIT_EXCEEDED" },
      }),
    ]);
    second.stop();
    await sleep(100);
    await works(c, project.project_id);
    await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "x" } },
      TEACHER,
    );
    await first.received(2);
  });

  it("when an instance holds WS_MAX_CONNECTIONS connections, then a new upgrade is refused with 503 until one closes", async () => {
    const t = await app({ config: { wsMaxConnections: 2 } });
    const project = await createProject(t);
    const [one, two] = [client(t), client(t)];
    // Each holds a subscription open (graphql-ws's lazy client closes its socket when it has none).
    const held = [subscribe(one, ProjectChangesDocument, {}), subscribe(two, ProjectChangesDocument, {})];
    await works(one, project.project_id);
    await works(two, project.project_id);

    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(wsUrl(t), "graphql-transport-ws");
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => reject(new Error("the third connection was accepted")));
    });
    await one.dispose();
    await sleep(100);

    expect(refused).toBe(503);
    await works(client(t), project.project_id);
    expect(held.map((h) => h.errors)).toEqual([undefined, undefined]);
  });

  it("when subscribe messages exceed the caller's rate limit, shared with HTTP requests, then they fail with TOO_MANY_REQUESTS", async () => {
    const t = await app({ config: { rateLimitPerMinute: 4 } });
    const caller = { "x-user-role": "student", "x-user-id": "limited-1" };
    await t.http("GET", "/graphql?query=%7BprojectStatuses%7D", { headers: caller });
    await t.http("GET", "/graphql?query=%7BprojectStatuses%7D", { headers: caller });
    const c = client(t, caller);
    const allowed = [subscribe(c, ProjectChangesDocument, {}), subscribe(c, ProjectChangesDocument, {})];
    await sleep(300);
    const refused = subscribe(c, ProjectChangesDocument, {});

    expect(await refused.failed()).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Rate limit of 4 requests per minute exceeded; retry in \d+ s$/),
        extensions: { code: "TOO_MANY_REQUESTS", reason: "RATE_LIMITED" },
      }),
    ]);
    expect(allowed.map((s) => s.errors)).toEqual([undefined, undefined]);
  });

  it("when a subscriber stops reading, then it is closed with 1013 once too many events wait, and resuming from its last cursor misses nothing", async () => {
    const t = await app();
    const anchor = await createProject(t);
    const seed = subscribe(client(t), ProjectChangedDocument, { projectId: anchor.project_id, afterRevision: 0 });
    const after = (await seed.received(1))[0].projectChanged.cursor;

    // A raw client that reads until subscribed, then stops reading its socket.
    const ws = new WebSocket(wsUrl(t), "graphql-transport-ws");
    const received: { cursor: string; project_id: number }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    await new Promise((resolve) => ws.on("open", resolve));
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as {
        type: string;
        payload?: { data?: { projectChanges: { cursor: string; project_id: number } } };
      };
      if (message.type === "next" && message.payload?.data) received.push(message.payload.data.projectChanges);
    });
    const acknowledged = new Promise((resolve) =>
      ws.on("message", (data) => {
        if ((JSON.parse(data.toString()) as { type: string }).type === "connection_ack") resolve(undefined);
      }),
    );
    ws.send(JSON.stringify({ type: "connection_init", payload: AS_STUDENT }));
    await acknowledged;
    // Large events (15 aliases of a 5,000-character description) fill the socket's buffers quickly.
    const wide = Array.from({ length: 15 }, (_, i) => `d${i}: project_desc`).join(" ");
    ws.send(
      JSON.stringify({
        id: "1",
        type: "subscribe",
        payload: {
          query: `subscription ($after: String) { projectChanges(after: $after) { cursor project_id project { ${wide} } } }`,
          variables: { after },
        },
      }),
    );
    await sleep(300);
    (ws as unknown as { _socket: Socket })._socket.pause();

    // The subscriber holds at most 256 undelivered events; the socket's buffers take a few dozen of these.
    const total = 500;
    // Positions taken from the log's counter, as writers take them.
    const base = (await t.db.ids.reserve("project_changes", total)) - 1;
    const at = new Date();
    await t.db.models.ProjectChange.insertMany(
      Array.from({ length: total }, (_, i) => ({
        _id: `${800_000 + i}:1`,
        seq: base + 1 + i,
        project_id: 800_000 + i,
        revision: 1,
        operation: "createProject",
        actor_id: null,
        actor_role: "admin",
        at,
        set: {},
        changes: [],
        project: { ...anchor, project_id: 800_000 + i, project_desc: "x".repeat(5000), created_at: at, updated_at: at },
      })),
    );
    for (let i = 0; i < 300 && (await metric(t, "graphql_ws_slow_consumers_total")) === 0; i++) await sleep(100);
    (ws as unknown as { _socket: Socket })._socket.resume();
    const close = await closed;

    expect(close).toEqual({
      code: 1013,
      reason: "Slow consumer: too many events unread; reconnect and resume from your last cursor",
    });
    expect(received.length).toBeLessThan(total);
    const resumed = subscribe(client(t), ProjectChangesDocument, { after: received.at(-1)?.cursor ?? after });
    const rest = await resumed.received(total - received.length, 60_000);
    expect([...received, ...rest.map((e) => e.projectChanges)].map((e) => e.project_id)).toEqual(
      Array.from({ length: total }, (_, i) => 800_000 + i),
    );
  }, 120_000);

  it("when the service shuts down, then every socket closes with 1001 within the shutdown bound, also one whose client does not answer", async () => {
    const t = await app();
    const project = await createProject(t);
    const polite = client(t);
    const sub = subscribe(polite, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
    await sub.received(1);
    const silent = new WebSocket(wsUrl(t), "graphql-transport-ws");
    await new Promise((resolve) => silent.on("open", resolve));
    silent.send(JSON.stringify({ type: "connection_init", payload: AS_STUDENT }));
    await sleep(200);
    (silent as unknown as { _socket: Socket })._socket.pause();

    const started = Date.now();
    await t.app.close();
    const took = Date.now() - started;

    expect(polite.closes).toEqual([
      { code: 1001, reason: expect.stringMatching(/^Going away: the service is shutting down/) },
    ]);
    expect(sub.completed || sub.errors !== undefined).toBe(true);
    expect(took).toBeLessThan(10_000); // src/index.ts's SHUTDOWN_TIMEOUT_MS
    silent.terminate();
  });

  it("when clients connect, subscribe and receive events, then /metrics counts connections, subscriptions and events delivered", async () => {
    const t = await app();
    const project = await createProject(t);
    const c = client(t);
    const sub = subscribe(c, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
    await sub.received(1);
    await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "m" } },
      TEACHER,
    );
    await sub.received(2);

    expect(await metric(t, "graphql_ws_connections")).toBe(1);
    expect(await metric(t, "graphql_subscriptions")).toBe(1);
    expect(await metric(t, "graphql_subscription_events_total")).toBe(2);
    await c.dispose();
    await sleep(200);
    expect(await metric(t, "graphql_ws_connections")).toBe(0);
    expect(await metric(t, "graphql_subscriptions")).toBe(0);
    expect(await metric(t, 'graphql_ws_closed_total{code="1000"}')).toBe(1);
  });
});
