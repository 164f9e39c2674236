// When a request fails before any route runs (too long a path parameter, oversized headers, broken framing, a
// malformed URL, a body that never completes, a document nested thousands deep, a request that arrives while the
// service drains), then the answer is still the error envelope — the GraphQL shape on /graphql — and carries no
// text of the runtime.
import net from "node:net";
import { startTestApp, type GraphQLBody, type RestBody, type TestApp } from "../helpers/app";
import { ADMIN } from "../helpers/fixtures";

const RUNTIME_TEXT = /call stack|RangeError|Client Error|FST_ERR|statusCode/i;

/** Sends raw bytes and reads until the server closes the connection (or `waitMs` passes). */
function rawExchange(url: string, request: string | (() => AsyncIterable<string>), waitMs = 5000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on("error", reject);
    socket.on("connect", async () => {
      if (typeof request === "string") socket.write(request);
      else for await (const part of request()) socket.write(part);
    });
  });
}

function parseHttp(raw: string): { status: number; headers: string; body: RestBody & GraphQLBody } {
  const [head, ...rest] = raw.split("\r\n\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  const text = rest.join("\r\n\r\n");
  return { status, headers: head, body: text ? JSON.parse(text) : null };
}

/** The REST envelope, with the message checked for runtime text. */
function expectEnvelope(body: RestBody, code = "BAD_REQUEST"): void {
  expect(body).toMatchObject({ success: false, code, message: expect.any(String) });
  expect(body.message).not.toMatch(RUNTIME_TEXT);
}

describe("framework errors answer the envelope", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a path id has 101 digits, then it is 400 BAD_REQUEST in the envelope (not 414)", async () => {
    const res = await t.http("PUT", `/projects/${"1".repeat(101)}/updateStatus`, {
      body: { project_status: "done" },
      headers: ADMIN,
    });

    expect(res.status).toBe(400);
    expectEnvelope(res.body);
    expect(res.body.message).toMatch(/path parameter/);
  });

  it("when a path has a malformed percent-encoding, then it is 400 in the envelope", async () => {
    const res = await t.http("PUT", "/projects/%E0%A4%A/teacher", { body: { new_teacher_id: 1 }, headers: ADMIN });

    expect(res.status).toBe(400);
    expectEnvelope(res.body);
  });

  it("when the headers are larger than the server accepts, then it is 431 with the envelope", async () => {
    const raw = await rawExchange(t.url, `GET /readyz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);

    const res = parseHttp(raw);
    expect(res.status).toBe(431);
    expectEnvelope(res.body);
    expect(res.body.message).toMatch(/headers are too large/);
    // The path is unknown at this stage: the entries also carry GraphQL's extensions.code.
    expect(res.body.errors![0].extensions!.code).toBe("BAD_REQUEST");
  });

  it.each([
    [
      "Content-Length with Transfer-Encoding",
      "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
    ],
    ["a request line that is not HTTP", "HELLO\r\n\r\n"],
    [
      "a broken chunk size",
      "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
  ])("when the framing is broken (%s), then it is 400 with the envelope", async (_name, request) => {
    const res = parseHttp(await rawExchange(t.url, request));

    expect(res.status).toBe(400);
    expectEnvelope(res.body);
    expect(res.body.message).toMatch(/malformed HTTP request/);
  });

  it("when a GraphQL document nests a list literal 5,000 deep, then it is 400 with a message that says what to fix", async () => {
    const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
    const res = await t.http<GraphQLBody>("POST", "/graphql", {
      body: { query: `{ project(projectId: ${deep}) { project_id } }` },
      headers: ADMIN,
    });

    expect(res.status).toBe(400);
    expect(res.body.errors![0].message).not.toMatch(RUNTIME_TEXT);
    expect(res.body.errors![0].message).toMatch(/too deeply/);
    expect(res.body.errors![0].extensions!.code).toEqual(expect.any(String));
  });

  it("when variables or a REST body nest 5,000 deep, then it is 400 naming the field", async () => {
    // As text: JSON.stringify of such a value would overflow the test's own stack.
    const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
    const gql = await t.http<GraphQLBody>("POST", "/graphql", {
      rawBody: `{"query": "query ($id: Int!) { project(projectId: $id) { project_id } }", "variables": {"id": ${deep}}}`,
      headers: ADMIN,
    });
    expect(gql.status).toBe(400);
    expect(gql.body.errors![0].message).not.toMatch(RUNTIME_TEXT);

    const rest = await t.http("PUT", "/projects/1/updateStatus", {
      rawBody: `{"project_status": ${deep}}`,
      headers: ADMIN,
    });
    expect(rest.status).toBe(400);
    expectEnvelope(rest.body);
    expect(rest.body.message).toMatch(/project_status/);
  });

  it("when a request body never completes, then the server answers 408 with the envelope and closes the connection", async () => {
    const raw = await rawExchange(
      t.url,
      'PUT /teachers/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-User-Role: admin\r\nContent-Length: 100\r\n\r\n{"teacher',
      50_000,
    );

    const res = parseHttp(raw);
    expect(res.status).toBe(408);
    expectEnvelope(res.body);
    expect(res.headers).toMatch(/connection: close/i);
  });
});

describe("draining for shutdown", () => {
  it("when the app closes, then a request already running completes and one arriving on an open connection is 503 in the envelope", async () => {
    const t = await startTestApp();
    const body = JSON.stringify({ teacher_name: "Late" });
    const pause = () => new Promise((r) => setTimeout(r, 200));
    let finishRunning!: () => void;
    let finishArriving!: () => void;
    const running = new Promise<void>((r) => (finishRunning = r));
    const arriving = new Promise<void>((r) => (finishArriving = r));
    // A: a request in flight at close (half its body sent). B: a connection whose request has not finished its
    // headers yet, so closing does not reap it as idle; its request reaches the app only once closing has begun.
    const answers = Promise.all([
      rawExchange(t.url, async function* () {
        yield `PUT /teachers/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-User-Role: admin\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`;
        await running;
        yield body.slice(5);
      }),
      rawExchange(t.url, async function* () {
        yield "GET /readyz HTTP/1.1\r\nHost: x\r\n";
        await arriving;
        yield "\r\n";
      }),
    ]);
    await pause();
    const closing = t.app.close();
    await pause();
    finishRunning();
    finishArriving();
    const [first, second] = (await answers).map(parseHttp);
    await closing;
    await t.db.connection.dropDatabase().catch(() => undefined);
    await t.db.close();

    // Teacher 1 does not exist: what matters is that the domain answered (BAD_REQUEST per the contract), not a 503.
    expect(first.status).toBe(400);
    expect(first.body.code).toBe("BAD_REQUEST");
    expect(second.status).toBe(503);
    expectEnvelope(second.body, "INTERNAL_SERVER_ERROR");
    expect(second.body.message).toMatch(/shutting down/);
    expect(second.headers).toMatch(/connection: close/i);
  });
});
