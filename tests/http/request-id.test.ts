// When any request is answered, then the response carries x-request-id (the client's when safe, else a new one)
// and the one log line of the request names that id, the caller, the role, the GraphQL operation and its outcome,
// with the path but never the query string.
import { Writable } from "node:stream";
import pino from "pino";
import { startTestApp, type TeacherDocumentBody, type TestApp } from "../helpers/app";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("x-request-id and the request log line", () => {
  const lines: Record<string, unknown>[] = [];
  let t: TestApp;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await startTestApp({ logger: pino({ level: "info" }, sink) });
  });
  afterAll(async () => {
    await t.close();
  });

  const requestLine = (id: string) => lines.find((line) => line.msg === "request" && line.reqId === id);

  it.each([
    ["a safe id", "client-id_1.2", "client-id_1.2"],
    ["64 safe characters", "a".repeat(64), "a".repeat(64)],
  ])("when the client sends %s, then the response and the log carry it", async (_what, sent, expected) => {
    const response = await fetch(`${t.url}/healthz`, { headers: { "x-request-id": sent } });
    expect(response.headers.get("x-request-id")).toBe(expected);
    expect(requestLine(expected)).toMatchObject({ path: "/healthz", status: 200 });
  });

  it.each([
    ["no id", undefined],
    ["an id with a space", "bad id"],
    ["an id of 65 characters", "a".repeat(65)],
    ["an id with a line break", 'evil%0a{"msg":"forged"}'],
  ])("when the client sends %s, then a new id is answered and logged", async (_what, sent) => {
    const response = await fetch(`${t.url}/healthz`, { headers: sent ? { "x-request-id": sent } : {} });
    const id = response.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    expect(requestLine(id)).toMatchObject({ path: "/healthz", status: 200 });
  });

  it("when a request fails (unknown route, bad JSON, REST error), then the answer still carries its id", async () => {
    const notFound = await fetch(`${t.url}/nowhere`, { headers: { "x-request-id": "r-404" } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("x-request-id")).toBe("r-404");

    const badJson = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "r-400" },
      body: "{ nope",
    });
    expect(badJson.status).toBe(400);
    expect(badJson.headers.get("x-request-id")).toBe("r-400");

    const rest = await fetch(`${t.url}/teachers/1`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-request-id": "r-401" },
      body: JSON.stringify({ teacher_name: "X" }),
    });
    expect(rest.status).toBe(401);
    expect(rest.headers.get("x-request-id")).toBe("r-401");
  });

  it("when a browser preflights a call (answered by CORS before any route), then the answer carries its id", async () => {
    const preflight = await fetch(`${t.url}/graphql`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-user-role",
        "x-request-id": "r-preflight",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("x-request-id")).toBe("r-preflight");
  });

  it("when a GraphQL operation runs, then its line names request id, caller, role, operation and outcome, without the query string", async () => {
    const response = await fetch(`${t.url}/graphql?token=secret-in-query`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-user-role": "student",
        "x-user-id": "u-42",
        "x-request-id": "req-gql",
      },
      body: JSON.stringify({
        query: 'mutation AddTeacher { createTeacher(input: { teacher_name: "Ada" }) { success code } }',
      }),
    });
    expect(((await response.json()) as TeacherDocumentBody).data!.createTeacher).toEqual({
      success: false,
      code: "FORBIDDEN",
    });

    const line = requestLine("req-gql");
    expect(line).toMatchObject({
      level: 30,
      method: "POST",
      path: "/graphql",
      status: 200,
      callerId: "u-42",
      role: "student",
      operation: "AddTeacher",
      outcome: "FORBIDDEN",
    });
    expect(line!.ms).toEqual(expect.any(Number));
    expect(JSON.stringify(lines)).not.toContain("secret-in-query");
  });

  it("when a REST operation runs, then its line names the caller and role", async () => {
    await fetch(`${t.url}/teachers/999999?x=1`, {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        "x-user-role": "admin",
        "x-user-id": "boss",
        "x-request-id": "req-rest",
      },
      body: JSON.stringify({ teacher_name: "Nobody" }),
    });
    expect(requestLine("req-rest")).toMatchObject({
      path: "/teachers/999999",
      status: 400,
      callerId: "boss",
      role: "admin",
    });
  });
});
