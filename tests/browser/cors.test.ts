// CORS as a browser sees it on the wire: which origins get Access-Control-Allow-Origin (localhost development
// servers by default, CORS_ORIGINS when set, none in production), what a preflight allows and a response exposes,
// and that Apollo's CSRF prevention still refuses simple requests from an allowed origin.
import { startTestApp, type TestApp } from "../helpers/app";
import { bearer, JWT_AUTH } from "../helpers/tokens";

const API_HEADERS = [
  "content-type",
  "authorization",
  "x-user-role",
  "x-user-id",
  "x-request-id",
  "apollo-require-preflight",
  "x-apollo-operation-name",
];

async function preflight(
  app: TestApp,
  path: string,
  origin: string,
  method = "POST",
  headers = "content-type,x-user-role,authorization",
) {
  return fetch(app.url + path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
  });
}

const listOf = (value: string | null) =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);

describe("CORS outside production without CORS_ORIGINS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(["http://localhost:5173", "http://127.0.0.1:3000", "http://localhost"])(
    "when a page on %s preflights POST /graphql, then it may send every header the API reads",
    async (origin) => {
      const res = await preflight(t, "/graphql", origin, "POST", API_HEADERS.join(","));

      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(listOf(res.headers.get("access-control-allow-methods"))).toEqual(expect.arrayContaining(["get", "post"]));
      expect(listOf(res.headers.get("access-control-allow-headers"))).toEqual(expect.arrayContaining(API_HEADERS));
      expect(res.headers.get("vary")).toMatch(/origin/i);
    },
  );

  it("when a page preflights a REST PUT, then PUT is allowed", async () => {
    const res = await preflight(t, "/projects/1/teacher", "http://localhost:5173", "PUT");

    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(listOf(res.headers.get("access-control-allow-methods"))).toContain("put");
  });

  it("when an allowed page posts a query, then the answer carries its origin and exposes x-request-id and Retry-After", async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { origin: "http://localhost:5173", "content-type": "application/json", "x-user-role": "student" },
      body: JSON.stringify({ query: "{ projects(limit: 1) { total } }" }),
    });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { projects: { total: 0 } } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(listOf(res.headers.get("access-control-expose-headers"))).toEqual(
      expect.arrayContaining(["x-request-id", "retry-after"]),
    );
  });

  it.each([
    "https://evil.example",
    "http://localhost.evil.example",
    "https://localhost:5173",
    "http://127.0.0.1.evil.example:80",
    "null",
  ])(
    "when a page on %s preflights, then it gets no Access-Control-Allow-Origin (the browser refuses)",
    async (origin) => {
      const res = await preflight(t, "/graphql", origin);

      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    },
  );

  it("when an allowed origin sends a simple GET query (no preflight headers), then Apollo's CSRF prevention refuses it", async () => {
    const res = await fetch(`${t.url}/graphql?query=${encodeURIComponent("{ projects(limit: 1) { total } }")}`, {
      headers: { origin: "http://localhost:5173" },
    });

    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/Cross-Site Request Forgery/);
  });

  it("when an allowed origin sends a GET query with X-User-Role (preflighted by a browser), then it runs", async () => {
    const res = await fetch(`${t.url}/graphql?query=${encodeURIComponent("{ projects(limit: 1) { total } }")}`, {
      headers: { origin: "http://localhost:5173", "x-user-role": "student" },
    });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { projects: { total: 0 } } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  });
});

describe("CORS with CORS_ORIGINS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, corsOrigins: ["https://app.example.org", "http://localhost:8080"] });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(["https://app.example.org", "http://localhost:8080"])(
    "when a page on listed %s calls, then it may read the answer",
    async (origin) => {
      const res = await fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { origin, "content-type": "application/json", ...(await bearer("teacher")) },
        body: JSON.stringify({ query: "{ teachers(limit: 1) { total } }" }),
      });

      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { teachers: { total: 0 } } });
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    },
  );

  it.each(["http://localhost:5173", "https://app.example.org.evil.example", "https://other.example.org"])(
    "when a page on unlisted %s preflights, then it gets no Access-Control-Allow-Origin",
    async (origin) => {
      const res = await preflight(t, "/graphql", origin);

      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    },
  );
});

describe("CORS in production without CORS_ORIGINS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, production: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(["http://localhost:5173", "https://app.example.org"])(
    "when a page on %s calls, then no origin is allowed",
    async (origin) => {
      const pre = await preflight(t, "/graphql", origin);
      const res = await fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { origin, "content-type": "application/json", ...(await bearer("student")) },
        body: JSON.stringify({ query: "{ projects(limit: 1) { total } }" }),
      });

      expect(pre.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    },
  );
});
