// When the app runs in-process, then /graphql, /healthz and /readyz answer over HTTP as the contract says.
import { ListTeachersDocument } from "../generated/graphql";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";

describe("HTTP endpoints", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when /graphql is queried with a role, then it answers data from the database", async () => {
    await t.db.models.Teacher.create({ teacher_id: 1, teacher_name: "Ada" });
    const res = await t.gql(ListTeachersDocument, {}, { "x-user-role": "student" });
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data?.teachers.items).toEqual([{ teacher_id: 1, teacher_name: "Ada" }]);
  });

  it("when /graphql is queried with GET, then queries work too", async () => {
    const res = await t.http<GraphQLBody<{ teachers: { total: number } }>>(
      "GET",
      `/graphql?query=${encodeURIComponent("{ teachers { total } }")}`,
      {
        headers: { "x-user-role": "teacher" },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data!.teachers.total).toBe(1);
  });

  it("when /healthz is asked, then it answers 200", async () => {
    const res = await t.http("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("when the database answers, then /readyz is 200; when it is closed, then /readyz is 503 and /healthz stays 200", async () => {
    const own = await startTestApp();
    try {
      expect((await own.http("GET", "/readyz")).status).toBe(200);
      await own.db.connection.close();
      const res = await own.http<{ status: string }>("GET", "/readyz");
      expect(res.status).toBe(503);
      expect(res.body.status).toBe("unavailable");
      expect((await own.http("GET", "/healthz")).status).toBe(200);
    } finally {
      await own.app.close();
    }
  });
});

describe("HTTP failures before GraphQL runs", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when /graphql receives malformed JSON, then it answers 400 with a GraphQL error coded BAD_REQUEST", async () => {
    const res = await t.http<GraphQLBody>("POST", "/graphql", {
      rawBody: '{"query": "{ teachers { total } }"',
      headers: { "x-user-role": "admin" },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions!.code).toBe("BAD_REQUEST");
    expect(res.body.errors![0].message).toMatch(/malformed JSON/);
  });

  it("when /graphql receives a body over 1 MiB, then it answers 413 with a GraphQL error", async () => {
    const res = await t.http<GraphQLBody>("POST", "/graphql", {
      rawBody: JSON.stringify({ query: `{ teachers { total } } #${"x".repeat(1024 * 1024)}` }),
    });
    expect(res.status).toBe(413);
    expect(res.body.errors![0].extensions!.code).toBe("BAD_REQUEST");
  });

  it.each([
    [
      "malformed JSON",
      "application/json",
      '{"query": ',
      400,
      "malformed JSON body: the request body is not valid JSON",
      "MALFORMED_REQUEST",
    ],
    [
      "an empty JSON body",
      "application/json",
      "",
      400,
      "request body is empty although content-type is application/json",
      "MALFORMED_REQUEST",
    ],
    [
      "a body over 1 MiB",
      "application/json",
      `"${"x".repeat(1024 * 1024)}"`,
      413,
      "request body is too large",
      "TOO_LARGE",
    ],
    [
      "a body that is not JSON",
      "application/xml",
      "<query/>",
      415,
      "Unsupported Media Type; send the body as application/json",
      "UNSUPPORTED_MEDIA_TYPE",
    ],
  ])(
    "when /graphql and a REST route receive %s, then both say the same, each in its own shape",
    async (_what, contentType, rawBody, status, message, reason) => {
      const headers = { "content-type": contentType, "x-user-role": "admin" };
      const graphql = await t.http<GraphQLBody>("POST", "/graphql", { rawBody, headers });
      const rest = await t.http("PUT", "/teachers/1", { rawBody, headers });

      expect(graphql).toEqual({ status, body: { errors: [{ message, extensions: { code: "BAD_REQUEST", reason } }] } });
      expect(rest).toEqual({
        status,
        body: {
          success: false,
          message,
          code: "BAD_REQUEST",
          errors: [{ field: null, message, code: "BAD_REQUEST", reason }],
        },
      });
    },
  );

  it("when a GraphQL document has a syntax error, then it is an ordinary GraphQL error", async () => {
    const res = await t.http<GraphQLBody>("POST", "/graphql", {
      body: { query: "{ teachers { total }" },
      headers: { "x-user-role": "admin" },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions!.code).toBe("GRAPHQL_PARSE_FAILED");
  });
});

describe("query limits", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a document holds more tokens than allowed, then it is rejected as a parse error (400)", async () => {
    const query = `{ ${Array.from({ length: 1100 }, () => "teachers { total }").join(" ")} }`;
    const res = await t.http<GraphQLBody>("POST", "/graphql", { body: { query }, headers: { "x-user-role": "admin" } });
    expect(res.status).toBe(400);
    expect(res.body.errors![0].message).toMatch(/more that 2000 tokens/);
  });

  it("when a query nests deeper than allowed, then it is rejected before it runs", async () => {
    const query =
      "{ projects { items { teacher { projects { teacher { projects { teacher { projects { teacher { teacher_id } } } } } } } } } }";
    const res = await t.http<GraphQLBody>("POST", "/graphql", { body: { query }, headers: { "x-user-role": "admin" } });
    expect(res.status).toBe(400);
    expect(res.body.errors![0].message).toMatch(/depth limit/i);
  });
});
