// When requests have been served, then GET /metrics (Prometheus text) shows them by route and status with latency
// histograms, GraphQL operations by name and outcome, database round-trip times and process metrics; in
// production it is closed unless METRICS_TOKEN is set, and then it needs that bearer token.
import { openDatabase, type Database } from "../../src/persistence";
import { MAX_OPERATION_LABELS } from "../../src/http/graphql-operations";
import { startTestApp, type TeacherDocumentBody, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";

const ADMIN = { "content-type": "application/json", "x-user-role": "admin" };

async function graphql(t: TestApp, query: string, headers: Record<string, string> = ADMIN) {
  const response = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query }) });
  return (await response.json()) as TeacherDocumentBody;
}

async function scrape(t: TestApp, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}/metrics`, { headers });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

/** The value of the series with exactly these labels (in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (
      Object.keys(labels).every((k) => found[k] === labels[k]) &&
      Object.keys(found).length === Object.keys(labels).length
    ) {
      return Number(match[3]);
    }
  }
  return undefined;
}

describe("GET /metrics outside production", () => {
  let db: Database;
  let t: TestApp;
  beforeAll(async () => {
    db = await openDatabase(testMongoUri(), { dbName: testDbName(), monitorCommands: true });
    t = await startTestApp({ db });
  });
  afterAll(async () => {
    await t.close();
    await dropTestDatabase(db);
  });

  it("when requests were served, then the scrape counts them by route, status, operation and outcome", async () => {
    const created = await graphql(
      t,
      'mutation CreateTeacher { createTeacher(input: { teacher_name: "Ada" }) { success } }',
    );
    expect(created.data!.createTeacher.success).toBe(true);
    const refused = await graphql(
      t,
      'mutation CreateTeacher { createTeacher(input: { teacher_name: "Bob" }) { success code } }',
      {
        ...ADMIN,
        "x-user-role": "student",
      },
    );
    expect(refused.data!.createTeacher).toEqual({ success: false, code: "FORBIDDEN" });
    const anonymousCaller = await graphql(t, "query ListTeachers { teachers(limit: 1) { total } }", {
      "content-type": "application/json",
    });
    expect(anonymousCaller.errors![0].extensions!.code).toBe("UNAUTHORIZED");
    expect((await graphql(t, "{ teachers(limit: 1) { total } }")).data!.teachers.total).toBe(1);
    expect((await fetch(`${t.url}/no/such/route`)).status).toBe(404);

    const { status, type, text } = await scrape(t);

    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, "http_requests_total", { method: "POST", route: "/graphql", status: "200" })).toBe(4);
    expect(sample(text, "http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(
      sample(text, "http_request_duration_seconds_count", { method: "POST", route: "/graphql", status: "200" }),
    ).toBe(4);
    expect(
      sample(text, "http_request_duration_seconds_bucket", {
        method: "POST",
        route: "/graphql",
        status: "200",
        le: "+Inf",
      }),
    ).toBe(4);
    expect(sample(text, "graphql_operations_total", { operation: "CreateTeacher", outcome: "success" })).toBe(1);
    expect(sample(text, "graphql_operations_total", { operation: "CreateTeacher", outcome: "FORBIDDEN" })).toBe(1);
    expect(sample(text, "graphql_operations_total", { operation: "ListTeachers", outcome: "UNAUTHORIZED" })).toBe(1);
    expect(sample(text, "graphql_operations_total", { operation: "anonymous", outcome: "success" })).toBe(1);
    expect(
      sample(text, "db_command_duration_seconds_count", { command: "insert", outcome: "ok" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "db_command_duration_seconds_count", { command: "find", outcome: "ok" }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it("when a document does not parse, then its outcome is BAD_REQUEST (its name is unknown: anonymous)", async () => {
    const broken = await graphql(t, "query Broken { teachers(");
    expect(broken.errors![0].extensions!.code).toBe("GRAPHQL_PARSE_FAILED");

    const { text } = await scrape(t);

    expect(sample(text, "graphql_operations_total", { operation: "anonymous", outcome: "BAD_REQUEST" })).toBe(1);
  });

  it("when clients send more distinct operation names than the metric keeps, then the rest count as other", async () => {
    const fresh = await startTestApp({ db });
    try {
      const names = Array.from({ length: MAX_OPERATION_LABELS + 20 }, (_, i) => `Probe${i}`);
      for (let i = 0; i < names.length; i += 50) {
        await Promise.all(names.slice(i, i + 50).map((name) => graphql(fresh, `query ${name} { __typename }`)));
      }

      const { text } = await scrape(fresh);
      const series = text.split("\n").filter((line) => line.startsWith("graphql_operations_total{"));

      expect(series).toHaveLength(MAX_OPERATION_LABELS + 1);
      expect(sample(text, "graphql_operations_total", { operation: "other", outcome: "success" })).toBe(20);
    } finally {
      await fresh.close();
    }
  });
});

describe("GET /metrics in production", () => {
  it("when no METRICS_TOKEN is set, then /metrics does not exist (404 envelope)", async () => {
    const t = await startTestApp({ config: { production: true } });
    try {
      const { status, text } = await scrape(t);
      expect(status).toBe(404);
      expect(JSON.parse(text)).toMatchObject({ success: false, code: "NOT_FOUND" });
    } finally {
      await t.close();
    }
  });

  it("when METRICS_TOKEN is set, then a scrape without it is 401 and one with it gets the metrics", async () => {
    const t = await startTestApp({ config: { production: true, metricsToken: "scrape-token-0123456789" } });
    try {
      const anonymous = await scrape(t);
      expect(anonymous.status).toBe(401);
      expect(JSON.parse(anonymous.text)).toMatchObject({ success: false, code: "UNAUTHORIZED" });
      expect((await scrape(t, { authorization: "Bearer wrong-token-0123456789" })).status).toBe(401);

      const allowed = await scrape(t, { authorization: "Bearer scrape-token-0123456789" });
      expect(allowed.status).toBe(200);
      expect(allowed.text).toMatch(/^process_cpu_user_seconds_total \d/m);
    } finally {
      await t.close();
    }
  });
});
