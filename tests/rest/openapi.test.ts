// GET /openapi.json: a valid OpenAPI 3.1 document (checked by an independent validator) whose paths and methods are
// exactly the REST routes the app serves, with both auth schemes, the envelope schemas and the error responses; and
// the document committed in schema/openapi.json (written by `npm run schema`).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import Ajv from "ajv";
import { OPENAPI_FILE, printOpenApi } from "../../src/rest/generated-docs";
import { startTestApp, type TestApp } from "../helpers/app";

// The validator is an ES module, which this Jest setup cannot load; a child node process runs it instead.
function validateOpenApi(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from "@seriousme/openapi-schema-validator";
    let input = "";
    for await (const chunk of process.stdin) input += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    input: JSON.stringify(document),
    cwd: process.cwd(),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`validator failed to run: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const CONTRACT_ROUTES = [
  // The sixth revision's deletions sort first.
  "DELETE /projects/{projectId}",
  "DELETE /students/{studentId}",
  "DELETE /teachers/{teacherId}",
  "POST /projects",
  "PUT /projects/{projectId}/archive",
  "PUT /projects/{projectId}/teacher",
  "PUT /projects/{projectId}/unarchive",
  "PUT /projects/{projectId}/updateStatus",
  "PUT /students/{studentId}",
  "PUT /teachers/{teacherId}",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The parts of an OpenAPI 3.1 document these tests read. */
interface MediaContent {
  content: Record<string, { schema: unknown }>;
}
interface OpenApiOperation {
  security?: unknown[];
  parameters?: unknown[];
  requestBody: MediaContent;
  responses: Record<string, MediaContent>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { enum?: string[] }> };
}

describe("GET /openapi.json", () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.http<OpenApiDocument>("GET", "/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => {
    await t.close();
  });

  it("when validated against the OpenAPI 3.1 schema, then it is valid", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(validateOpenApi(doc)).toEqual({ valid: true, version: "3.1" });
  });

  it("when the validator gets a broken document, then it reports it (the check above is not vacuous)", () => {
    const broken = { ...doc, paths: { ...doc.paths, "/projects": { post: { responses: { 201: { content: {} } } } } } };
    expect(validateOpenApi(broken).valid).toBe(false);
  });

  it("when its operations are listed, then they are exactly the contract's REST routes (the five of the original interface and the sixth revision's archive, unarchive and deletions)", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(CONTRACT_ROUTES);
  });

  it("when each documented path is probed on the app, then the documented methods are routes and no other method is", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const url = path.replace(/\{(\w+)\}/g, ":$1");
      for (const method of METHODS) {
        const documented = Object.prototype.hasOwnProperty.call(item, method.toLowerCase());
        expect({ method, url, routed: t.app.hasRoute({ method, url }) }).toEqual({ method, url, routed: documented });
      }
    }
  });

  it("when an operation is read, then it declares both auth schemes, the path id, the body and the envelope responses", () => {
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer", bearerFormat: "JWT" }),
      userRole: expect.objectContaining({ type: "apiKey", in: "header", name: "X-User-Role" }),
    });
    const assign = doc.paths["/projects/{projectId}/teacher"].put;
    expect(assign.security).toEqual([{ bearerAuth: [], userRole: [] }, { userRole: [] }]);
    expect(assign.parameters).toEqual([
      expect.objectContaining({
        name: "projectId",
        in: "path",
        required: true,
        schema: expect.objectContaining({ type: "string", pattern: "^(0|-?[1-9][0-9]*)$" }),
      }),
    ]);
    expect(assign.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/AssignTeacherInput",
    });
    expect(Object.keys(assign.responses)).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "500",
      "503",
    ]);
    expect(assign.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ProjectEnvelope",
    });
    expect(assign.responses["404"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ErrorEnvelope",
    });

    // From the role table: any authenticated caller may change a status; creation lists a 403, for a company the
    // caller's row rules (ACCESS_POLICY) do not let it read.
    expect(doc.paths["/projects/{projectId}/updateStatus"].put.security).toEqual([
      { bearerAuth: [] },
      { userRole: [] },
    ]);
    expect(Object.keys(doc.paths["/projects"].post.responses)).toEqual([
      "201",
      "400",
      "401",
      "403",
      "409",
      "413",
      "415",
      "500",
      "503",
    ]);
    expect(Object.keys(doc.paths["/teachers/{teacherId}"].put.responses)).toEqual([
      "200",
      "400",
      "401",
      "403",
      "413",
      "415",
      "500",
      "503",
    ]);
  });

  it("when the envelope schemas are read, then success is {success, message, data} and errors are {success, message, code, errors}", () => {
    const { schemas } = doc.components;
    expect(schemas.ErrorEnvelope).toMatchObject({
      required: ["success", "message", "code", "errors"],
      properties: {
        code: { $ref: "#/components/schemas/ErrorCode" },
        errors: { type: "array", items: { $ref: "#/components/schemas/FieldError" } },
      },
      additionalProperties: false,
    });
    expect(schemas.FieldError).toMatchObject({
      required: ["field", "message", "code", "reason"],
      properties: {
        field: { type: ["string", "null"] },
        code: { $ref: "#/components/schemas/ErrorCode" },
        reason: { $ref: "#/components/schemas/FieldErrorReason" },
      },
    });
    expect(schemas.FieldErrorReason.enum).toEqual(expect.arrayContaining(["REQUIRED", "TAKEN", "NOT_ALLOWED"]));
    expect(schemas.ErrorCode.enum).toEqual([
      "BAD_REQUEST",
      "UNAUTHORIZED",
      "FORBIDDEN",
      "NOT_FOUND",
      "CONFLICT",
      "INTERNAL_SERVER_ERROR",
      "TOO_MANY_REQUESTS",
      "SERVICE_UNAVAILABLE",
    ]);
    expect(schemas.StudentEnvelope).toMatchObject({
      required: ["success", "message", "data"],
      properties: { data: { $ref: "#/components/schemas/Student" } },
    });
  });

  it("when a documented body schema checks what the server rejects, then it rejects it too (same schemas)", () => {
    const ajv = new Ajv({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas))
      ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    const create = ajv.compile({ $ref: "#/components/schemas/CreateProjectInput" });
    const valid = {
      project_name: "A",
      project_desc: "B",
      company_id: 3,
      project_status: "new",
      start_date: "2025-01-01",
      end_date: "2025-01-02",
    };
    expect(create(valid)).toBe(true);
    expect(create({ ...valid, company_id: "3" })).toBe(false);
    expect(create({ ...valid, extra: 1 })).toBe(false);
    const student = ajv.compile({ $ref: "#/components/schemas/UpdateStudentInput" });
    expect(student({})).toBe(true);
    expect(student({ email: "a@b.c" })).toBe(false);
  });
});

describe("GET /openapi.json, generated by @fastify/swagger from the route schemas", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when it is asked for, then it is the committed schema/openapi.json (paths, schemas, envelopes, security), so a change of the REST facade shows in review", async () => {
    const now = (await t.http("GET", "/openapi.json")).body;

    // On failure: run `npm run schema` and commit schema/openapi.json.
    expect(printOpenApi(now)).toBe(fs.readFileSync(OPENAPI_FILE, "utf8"));
  });
});

describe("GET /docs, built on its first request", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when Swagger UI's page and its document are asked for, then they are served (the document equal to /openapi.json)", async () => {
    const page = await fetch(`${t.url}/docs`);
    const json = await t.http("GET", "/docs/json");

    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(json.body).toEqual((await t.http("GET", "/openapi.json")).body);
  });

  it("when a file the documentation does not have is asked for, then it is the 404 envelope like any unknown path", async () => {
    const res = await t.http("GET", "/docs/static/no-such-file.js");

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: "NOT_FOUND" });
  });
});
