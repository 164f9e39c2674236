// When a caller sends more requests per minute than RATE_LIMIT_PER_MINUTE, then further requests are refused with
// HTTP 429, Retry-After and TOO_MANY_REQUESTS in each transport's shape; other callers, probes and the metrics
// scrape are not limited. The key is the JWT sub (jwt mode), X-User-Id (header mode), else the client address.
import { startTestApp, type RestBody, type TeacherDocumentBody, type TestApp } from "../helpers/app";
import { JWT_AUTH, token } from "../helpers/tokens";

const LIMIT = 3;
const QUERY = { query: "{ teachers(limit: 1) { total } }" };

/** A GraphQL POST, or a REST PUT (the body then is the REST envelope, RestBody). */
async function post(t: TestApp, path: string, headers: Record<string, string>, body: unknown = QUERY) {
  const response = await fetch(t.url + path, {
    method: path === "/graphql" ? "POST" : "PUT",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as TeacherDocumentBody & RestBody,
  };
}

describe("rate limit (header mode)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { rateLimitPerMinute: LIMIT } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a caller exceeds the limit on /graphql, then it gets 429, Retry-After and a TOO_MANY_REQUESTS GraphQL error", async () => {
    const headers = { "x-user-role": "admin", "x-user-id": "gql-caller" };
    for (let i = 0; i < LIMIT; i++) {
      const ok = await post(t, "/graphql", headers);
      expect(ok.status).toBe(200);
      expect(ok.body.data!.teachers.total).toBeGreaterThanOrEqual(0);
    }

    const refused = await post(t, "/graphql", headers);

    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(refused.body).toEqual({
      errors: [
        {
          message: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded/),
          extensions: { code: "TOO_MANY_REQUESTS", reason: "RATE_LIMITED" },
        },
      ],
    });
  });

  it("when a caller exceeds the limit on a REST route, then it gets 429 with the error envelope and nothing changes", async () => {
    const created = await post(
      t,
      "/graphql",
      { "x-user-role": "admin", "x-user-id": "setup" },
      {
        query: 'mutation { createTeacher(input: { teacher_name: "Ada" }) { data { teacher_id } } }',
      },
    );
    const id = created.body.data!.createTeacher.data!.teacher_id;
    const headers = { "x-user-role": "admin", "x-user-id": "rest-caller" };
    for (let i = 0; i < LIMIT; i++) {
      expect((await post(t, `/teachers/${id}`, headers, { teacher_name: `Name ${i}` })).status).toBe(200);
    }

    const refused = await post(t, `/teachers/${id}`, headers, { teacher_name: "One too many" });

    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    const message = expect.stringMatching(/^Rate limit of 3 requests per minute exceeded; retry in \d+ s$/);
    expect(refused.body).toEqual({
      success: false,
      message,
      code: "TOO_MANY_REQUESTS",
      errors: [{ field: null, message, code: "TOO_MANY_REQUESTS", reason: "RATE_LIMITED" }],
    });
    expect(refused.body.errors![0].message).toBe(refused.body.message);
    const stored = await t.db.models.Teacher.findOne({ teacher_id: id }).lean();
    expect(stored!.teacher_name).toBe(`Name ${LIMIT - 1}`);
  });

  it("when one caller is limited, then another caller (X-User-Id) is still served", async () => {
    const limited = { "x-user-role": "admin", "x-user-id": "busy" };
    for (let i = 0; i < LIMIT; i++) await post(t, "/graphql", limited);
    expect((await post(t, "/graphql", limited)).status).toBe(429);

    expect((await post(t, "/graphql", { "x-user-role": "admin", "x-user-id": "quiet" })).status).toBe(200);
  });

  it("when callers send no X-User-Id, then they share the limit of their address", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await post(t, "/graphql", { "x-user-role": "admin" })).status).toBe(200);

    expect((await post(t, "/graphql", { "x-user-role": "teacher" })).status).toBe(429);
  });

  it("when probes and the metrics scrape are called more often than the limit, then they are never refused", async () => {
    for (let i = 0; i < LIMIT * 3; i++) {
      for (const path of ["/healthz", "/readyz", "/metrics"]) {
        expect((await fetch(t.url + path)).status).toBe(200);
      }
    }
  });
});

describe("rate limit (jwt mode)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, config: { rateLimitPerMinute: LIMIT } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when requests carry tokens, then the limit counts per token sub, whatever X-User-Id says", async () => {
    const alice = { authorization: `Bearer ${await token(["admin"], { sub: "alice" })}` };
    for (let i = 0; i < LIMIT; i++) {
      expect((await post(t, "/graphql", { ...alice, "x-user-id": `spoof-${i}` })).status).toBe(200);
    }
    expect((await post(t, "/graphql", { ...alice, "x-user-id": "spoof-again" })).status).toBe(429);

    const bob = { authorization: `Bearer ${await token(["admin"], { sub: "bob" })}` };
    const res = await post(t, "/graphql", bob);
    expect(res.status).toBe(200);
    expect(res.body.data!.teachers.total).toBeGreaterThanOrEqual(0);
  });
});
