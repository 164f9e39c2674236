// Webhooks as a receiver sees them (contract: "Webhooks"): real HTTP receivers on 127.0.0.1, each request verified by
// the standardwebhooks library as a receiver would; the app in-process on its own database. The retry schedule's
// waits are scaled down (WEBHOOKS_RETRY_SCALE) so eight attempts take moments instead of 41 hours.
import { RedeliverWebhookDocument, WebhookDeliveriesDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { openTestDatabase, dropTestDatabase } from "../helpers/database";
import { newSecret, startReceiver, verified, type Receiver } from "../helpers/webhook-receiver";
import { parseWebhooksFile } from "../../src/components/webhooks";
import type { Database } from "../../src/persistence";
import { ADMIN, TEACHER, createProject, createTeacher } from "../operations/support";
import { UpdateProjectStatusDocument, AssignTeacherDocument } from "../generated/graphql";

type EndpointJson = Record<string, unknown>;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function receiver(answer?: Receiver["answer"]): Promise<Receiver> {
  const r = await startReceiver(answer);
  open.push(r);
  return r;
}

/** An app delivering to `endpoints` (a WEBHOOKS file's list), on `db` (its own when not given). */
async function appWith(
  endpoints: EndpointJson[],
  options: { db?: Database; allowPrivate?: boolean; scale?: number } = {},
): Promise<TestApp> {
  const allowPrivate = options.allowPrivate ?? true;
  const webhooks = parseWebhooksFile(JSON.stringify({ endpoints }), { allowPrivate });
  const t = await startTestApp({
    db: options.db,
    config: {
      webhooks,
      webhooksAllowPrivate: allowPrivate,
      webhooksRetryScale: options.scale ?? 0.0001,
      subscriptionPollMs: 50,
    },
  });
  open.push(t);
  return t;
}

async function changeStatus(t: TestApp, projectId: number, project_status: string) {
  const res = await t.gql(UpdateProjectStatusDocument, { projectId, input: { project_status } }, ADMIN);
  expect(res.data?.updateProjectStatus.success).toBe(true);
}

async function deliveries(
  t: TestApp,
  variables: { endpoint?: string; status?: "PENDING" | "DELIVERED" | "FAILED" } = {},
) {
  const res = await t.gql(WebhookDeliveriesDocument, { first: 100, ...variables }, ADMIN);
  expect(res.errors).toBeUndefined();
  return res.data!.webhookDeliveries.edges.map((e) => e.node);
}

/** Polls the admin query until `done` holds for the endpoint's deliveries (bounded: a failure, not a measurement). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, limitMs = 20_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${limitMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("webhooks: what a receiver gets", () => {
  it("when a project is created, then the receiver gets one POST that every rotated secret verifies, with the event, the change as in history and the project", async () => {
    const r = await receiver();
    const [s1, s2] = [newSecret(), newSecret()];
    const t = await appWith([{ id: "lms", url: r.url, secrets: [s1, s2] }]);

    const project = await createProject(t, { company_id: 7 });
    const [request] = await r.waitFor(1);

    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-id"]).toMatch(/^msg_lms_\d+$/);
    expect(request.headers["webhook-signature"].split(" ")).toHaveLength(2);
    // Each secret alone verifies (a receiver that knows only the old or only the new one).
    for (const secret of [s1, s2]) {
      const body = verified(secret, request);
      expect(body).toMatchObject({
        type: "project.created",
        data: {
          project_id: project.project_id,
          change: { revision: 1, operation: "createProject", actor_role: "admin" },
          project: { project_id: project.project_id, company_id: 7, revision: 1, project_name: project.project_name },
        },
      });
      expect(typeof body.data.cursor).toBe("string");
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    }
    // Another secret does not.
    expect(() => verified(newSecret(), request)).toThrow("No matching signature");
    // The body names no secret.
    expect(request.body).not.toContain(s1.slice(6));
    const [stored] = await eventually(
      () => deliveries(t, { endpoint: "lms" }),
      (list) => list[0]?.status === "DELIVERED",
    );
    expect(stored).toMatchObject({
      id: request.headers["webhook-id"],
      event: "project.created",
      project_id: project.project_id,
      revision: 1,
      attempts: 1,
      last_http_status: 200,
      next_attempt_at: null,
    });
  });

  it("when a project is archived, unarchived and deleted, then the receiver gets those events in order, the deletion with the project as it was", async () => {
    const r = await receiver();
    const secret = newSecret();
    const t = await appWith([
      { id: "life", url: r.url, secret, events: ["project.archived", "project.unarchived", "project.deleted"] },
    ]);
    const project = await createProject(t, { company_id: 4 });
    const mutate = async (name: string) => {
      const res = await t.http<{ data: Record<string, { success: boolean }> }>("POST", "/graphql", {
        body: {
          query: `mutation ($id: Int!) { ${name}(projectId: $id) { success } }`,
          variables: { id: project.project_id },
        },
        headers: ADMIN,
      });
      expect(res.body.data[name].success).toBe(true);
    };
    await mutate("archiveProject");
    await mutate("unarchiveProject");
    await mutate("deleteProject");

    const requests = await r.waitFor(3);
    const bodies = requests.map((request) => verified(secret, request));
    expect(bodies.map((b) => [b.type, b.data.change.revision, b.data.change.operation])).toEqual([
      ["project.archived", 2, "archiveProject"],
      ["project.unarchived", 3, "unarchiveProject"],
      ["project.deleted", 4, "deleteProject"],
    ]);
    expect(bodies[0].data.project).toMatchObject({ project_id: project.project_id });
    expect(bodies[0].data.project.archived_at).toEqual(expect.any(String));
    expect(bodies[2].data.project).toMatchObject({
      project_id: project.project_id,
      project_name: project.project_name,
      company_id: 4,
      archived_at: null,
    });
  });

  it("when endpoints select by events and by where, then each gets only the changes it selected, the project as of the change", async () => {
    const statuses = await receiver();
    const company7 = await receiver();
    const secret = newSecret();
    const t = await appWith([
      { id: "statuses", url: statuses.url, secret, events: ["project.status_changed"] },
      {
        id: "c7",
        url: company7.url,
        secret,
        where: {
          company_id: { in: [7] },
          project_name: { startsWith: "  ÉNER" },
          not: { project_status: { eq: "x" } },
        },
      },
    ]);

    const seven = await createProject(t, { company_id: 7, project_name: `Énergie ${Date.now()}` });
    const eight = await createProject(t, { company_id: 8, project_name: `Énergie ${Date.now()}` });
    await changeStatus(t, eight.project_id, "active");
    await changeStatus(t, seven.project_id, "x");
    await changeStatus(t, seven.project_id, "active");

    const got = (await statuses.waitFor(3)).map((req) => verified(secret, req));
    expect(got.map((b) => [b.type, b.data.project_id, b.data.project.project_status])).toEqual([
      ["project.status_changed", eight.project_id, "active"],
      ["project.status_changed", seven.project_id, "x"],
      ["project.status_changed", seven.project_id, "active"],
    ]);
    // Company 7, its name folded starts with "ener", and not while its status (as of the change) is "x".
    const c7 = (await company7.waitFor(2)).map((req) => verified(secret, req));
    expect(c7.map((b) => [b.type, b.data.project_id, b.data.change.revision])).toEqual([
      ["project.created", seven.project_id, 1],
      ["project.status_changed", seven.project_id, 3],
    ]);
    const stored = await deliveries(t, { endpoint: "c7" });
    expect(stored).toHaveLength(2);
  });

  it("when a project changes twenty times at once, then its changes reach the endpoint in revision order", async () => {
    const r = await receiver();
    const secret = newSecret();
    const t = await appWith([{ id: "order", url: r.url, secret }]);
    const project = await createProject(t);
    await Promise.all(Array.from({ length: 20 }, (_, i) => changeStatus(t, project.project_id, `s${i}`)));

    const got = (await r.waitFor(21)).map((req) => verified(secret, req));
    expect(got.map((b) => b.data.change.revision)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(new Set(got.map((b) => b.data.cursor)).size).toBe(21);
  });
});

describe("webhooks: failures, retries and 410", () => {
  it("when the receiver fails three times and then recovers, then the delivery succeeds on its fourth attempt with the same webhook-id, and holds its project's next change but not another project's", async () => {
    const secret = newSecret();
    const failing = new Set<number>();
    const r = await receiver((n, req) => {
      const body = verified(secret, req);
      const first = [...failing][0];
      if (first === undefined || body.data.project_id !== first) return { status: 200 };
      return r.received.filter((x) => verified(secret, x).data.project_id === first).length <= 3
        ? { status: 500, body: "x".repeat(5000) }
        : { status: 200 };
    });
    const t = await appWith([{ id: "flaky", url: r.url, secret }], { scale: 0.001 });
    const p = await createProject(t);
    failing.add(p.project_id);
    await changeStatus(t, p.project_id, "active");
    const q = await createProject(t);

    await r.waitFor(6);
    const bodies = r.received.map((req) => verified(secret, req));
    const ofP = r.received.filter((_, i) => bodies[i].data.project_id === p.project_id);
    // P's creation four times (the same id each time), then P's status change, never before.
    expect(ofP.map((req) => verified(secret, req).data.change.revision)).toEqual([1, 1, 1, 1, 2]);
    expect(new Set(ofP.slice(0, 4).map((req) => req.headers["webhook-id"])).size).toBe(1);
    // Q was not held by P's failures: it arrived before P's fourth attempt.
    const qAt = bodies.findIndex((b) => b.data.project_id === q.project_id);
    const pFourth = r.received.indexOf(ofP[3]);
    expect(qAt).toBeLessThan(pFourth);

    const stored = await eventually(
      () => deliveries(t, { endpoint: "flaky" }),
      (list) => list.length === 3 && list.every((d) => d.status === "DELIVERED"),
    );
    const created = stored.find((d) => d.project_id === p.project_id && d.revision === 1)!;
    expect(created).toMatchObject({ attempts: 4, last_http_status: 200 });
  });

  it("when every attempt fails, then the delivery is FAILED after 8 attempts, with at most 1 KB of the last answer, and the endpoint goes on with the project's next change", async () => {
    const secret = newSecret();
    let failing = true;
    const r = await receiver(() => (failing ? { status: 503, body: "é".repeat(2000) } : { status: 204 }));
    const t = await appWith([{ id: "down", url: r.url, secret }], { scale: 0.00001 });
    const p = await createProject(t);
    await r.waitFor(8);
    const [failed] = await eventually(
      () => deliveries(t, { endpoint: "down", status: "FAILED" }),
      (list) => list.length === 1,
    );
    expect(failed).toMatchObject({ attempts: 8, last_http_status: 503, next_attempt_at: null });
    expect(Buffer.byteLength(failed.last_response!)).toBeLessThanOrEqual(1024);

    failing = false;
    await changeStatus(t, p.project_id, "active");
    const [, ninth] = [r.received[7], (await r.waitFor(9))[8]];
    expect(verified(secret, ninth).data.change.revision).toBe(2);
  });

  it("when the receiver answers 503 with Retry-After: 2, then the next attempt comes no sooner than 2 seconds later", async () => {
    const secret = newSecret();
    const r = await receiver((n) => (n === 1 ? { status: 503, headers: { "retry-after": "2" } } : { status: 200 }));
    const t = await appWith([{ id: "later", url: r.url, secret }], { scale: 0.00001 });
    await createProject(t);
    const [first, second] = await r.waitFor(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(2000 - 5);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
  });

  it("when the receiver answers 410 Gone, then the endpoint is off (no more requests, in /metrics) until the file names it with another URL, which gets what was missed", async () => {
    const secret = newSecret();
    const gone = await receiver(() => ({ status: 410 }));
    const control = await receiver();
    const db = await openTestDatabase();
    open.push({ close: () => dropTestDatabase(db) });
    const t = await appWith(
      [
        { id: "gone", url: gone.url, secret },
        { id: "control", url: control.url, secret },
      ],
      { db },
    );
    const p = await createProject(t);
    await gone.waitFor(1);
    await eventually(
      () => deliveries(t, { endpoint: "gone" }),
      (list) => list[0]?.status === "FAILED",
    );
    await changeStatus(t, p.project_id, "active");
    await control.waitFor(2);
    const metrics = await eventually(
      () => t.http<string>("GET", "/metrics"),
      (m) => m.body.includes('webhook_deliveries_total{endpoint="control",outcome="delivered"} 2'),
    );
    expect(metrics.body).toContain('webhook_endpoint_off{endpoint="gone"} 1');
    expect(metrics.body).toContain('webhook_endpoint_off{endpoint="control"} 0');
    expect(metrics.body).toContain('webhook_deliveries_total{endpoint="gone",outcome="gone"} 1');
    // Several polls later, still nothing more for the endpoint that went away.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(gone.received).toHaveLength(1);
    await t.close();
    open.splice(open.indexOf(t), 1);

    // The file names the endpoint again, with a new URL: it gets the change it missed.
    const back = await receiver();
    await appWith([{ id: "gone", url: back.url, secret }], { db });
    const [missed] = await back.waitFor(1);
    expect(verified(secret, missed)).toMatchObject({
      type: "project.status_changed",
      data: { project_id: p.project_id },
    });
  });
});

describe("webhooks: seeing and redoing (admin)", () => {
  it("when an admin redelivers a delivered delivery, then the receiver gets it again with the same webhook-id; a teacher is FORBIDDEN, a pending one is CONFLICT, an unknown id NOT_FOUND", async () => {
    const secret = newSecret();
    const r = await receiver();
    const t = await appWith([{ id: "again", url: r.url, secret }]);
    const p = await createProject(t);
    const [first] = await r.waitFor(1);
    const [stored] = await eventually(
      () => deliveries(t, { endpoint: "again" }),
      (list) => list[0]?.status === "DELIVERED",
    );

    const asTeacher = await t.gql(RedeliverWebhookDocument, { id: stored.id }, TEACHER);
    expect(asTeacher.data?.redeliverWebhook).toMatchObject({ success: false, code: "FORBIDDEN", data: null });
    const list = await t.gql(WebhookDeliveriesDocument, {}, TEACHER);
    expect(list.errors?.[0].extensions?.code).toBe("FORBIDDEN");

    // Hold the receiver's next answer so the redelivery stays pending while it is asked again.
    r.answer = () => "hang";
    const again = await t.gql(RedeliverWebhookDocument, { id: stored.id }, ADMIN);
    expect(again.data?.redeliverWebhook).toMatchObject({
      success: true,
      code: null,
      data: { id: stored.id, status: "PENDING" },
    });
    const [, second] = await r.waitFor(2);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(verified(secret, second)).toEqual(verified(secret, first));
    const pending = await t.gql(RedeliverWebhookDocument, { id: stored.id }, ADMIN);
    expect(pending.data?.redeliverWebhook).toMatchObject({ success: false, code: "CONFLICT" });
    const unknown = await t.gql(RedeliverWebhookDocument, { id: "msg_again_999999" }, ADMIN);
    expect(unknown.data?.redeliverWebhook).toMatchObject({ success: false, code: "NOT_FOUND" });
    expect(p.project_id).toBeGreaterThan(0);
  });

  it("when deliveries are listed, then they page newest first by cursor and filter by endpoint and status", async () => {
    const secret = newSecret();
    const r = await receiver();
    const t = await appWith([
      { id: "pages", url: r.url, secret },
      { id: "other", url: r.url, secret, events: ["project.created"] },
    ]);
    const p = await createProject(t);
    await changeStatus(t, p.project_id, "active");
    const teacher = await createTeacher(t);
    const assigned = await t.gql(
      AssignTeacherDocument,
      { projectId: p.project_id, input: { new_teacher_id: teacher.teacher_id } },
      ADMIN,
    );
    expect(assigned.data?.assignTeacher.success).toBe(true);
    await r.waitFor(4);
    const all = await eventually(
      () => deliveries(t),
      (list) => list.length === 4 && list.every((d) => d.status === "DELIVERED"),
    );
    expect(all.map((d) => [d.endpoint, d.revision])).toEqual([
      ["pages", 3],
      ["pages", 2],
      ["pages", 1],
      ["other", 1],
    ]);
    const page1 = await t.gql(WebhookDeliveriesDocument, { endpoint: "pages", first: 2 }, ADMIN);
    expect(page1.data!.webhookDeliveries).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    const page2 = await t.gql(
      WebhookDeliveriesDocument,
      { endpoint: "pages", first: 2, after: page1.data!.webhookDeliveries.pageInfo.endCursor },
      ADMIN,
    );
    expect(page2.data!.webhookDeliveries.edges.map((e) => [e.node.event, e.node.revision])).toEqual([
      ["project.created", 1],
    ]);
    expect(page2.data!.webhookDeliveries.pageInfo.hasNextPage).toBe(false);
    const bad = await t.gql(WebhookDeliveriesDocument, { after: "nope" }, ADMIN);
    expect(bad.errors?.[0].extensions).toMatchObject({ code: "BAD_REQUEST", field: "after" });
    const metrics = await t.http<string>("GET", "/metrics");
    expect(metrics.body).toContain('webhook_oldest_pending_seconds{endpoint="pages"} 0');
  });
});

describe("webhooks: private addresses", () => {
  it.each([
    "https://127.0.0.1:9/hooks",
    "https://localhost:9/hooks",
    "https://[::1]:9/hooks",
    "https://10.1.2.3/hooks",
  ])(
    "when WEBHOOKS_ALLOW_PRIVATE is false and the endpoint is %s, then it is not called and the delivery fails naming the address",
    async (url) => {
      const t = await appWith([{ id: "private", url, secret: newSecret() }], { allowPrivate: false });
      await createProject(t);
      const [failed] = await eventually(
        () => deliveries(t, { endpoint: "private" }),
        (list) => list[0]?.status === "FAILED",
      );
      expect(failed.last_http_status).toBeNull();
      expect(failed.last_error).toMatch(/(loopback|private) address \(WEBHOOKS_ALLOW_PRIVATE is false\)/);
      expect(failed.attempts).toBe(1);
    },
  );

  it("when WEBHOOKS_ALLOW_PRIVATE is false, then an http URL is refused by the file's check", () => {
    expect(() =>
      parseWebhooksFile(
        JSON.stringify({ endpoints: [{ id: "a", url: "http://example.org/x", secret: newSecret() }] }),
        {
          allowPrivate: false,
        },
      ),
    ).toThrow("endpoints[0].url: expected an https URL (http is allowed only with WEBHOOKS_ALLOW_PRIVATE=true)");
  });
});
