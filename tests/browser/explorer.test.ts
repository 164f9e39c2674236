// GET /graphql in a browser: GraphiQL from the service's own files, working with every other host blocked (a real
// Chromium runs a query with the prefilled role header and sees the result; the screenshot is left in
// tests/output/graphiql.png); Apollo Sandbox when EXPLORER=sandbox; no explorer in production.
import fs from "node:fs";
import path from "node:path";
import { version as graphiqlVersion } from "graphiql/package.json";
import { startTestApp, type TestApp } from "../helpers/app";
import { JWT_AUTH } from "../helpers/tokens";
import { allowOnlyOrigin, launchChromium, OUTPUT_DIR, type Browser } from "./chromium";

const getHtml = (t: TestApp, path = "/graphql") => fetch(t.url + path, { headers: { accept: "text/html" } });

describe("EXPLORER=graphiql (the default)", () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("when a browser asks for /graphql, then the page loads its scripts and styles from the service only", async () => {
    const res = await getHtml(t);
    const html = await res.text();

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1])
      .filter((url) => !url.startsWith("data:"));
    expect(assets).toHaveLength(5);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const file = await fetch(new URL(asset, `${t.url}/graphql`));
      expect({ asset, status: file.status, type: file.headers.get("content-type") }).toEqual({
        asset,
        status: 200,
        type: asset.endsWith(".css") ? "text/css; charset=utf-8" : "application/javascript; charset=utf-8",
      });
    }
  });

  it("when a person runs the prefilled query with the prefilled role header and no other host reachable, then GraphiQL shows the result", async () => {
    const created = await t.http("POST", "/projects", {
      body: {
        project_name: "GraphiQL kite",
        project_desc: "Seen in GraphiQL",
        company_id: 2,
        project_status: "planned",
        start_date: "2026-01-10",
        end_date: "2026-06-30",
      },
      headers: { "x-user-role": "student" },
    });
    expect(created.status).toBe(201);
    const page = await browser.newPage();
    const elsewhere = await allowOnlyOrigin(page, t.url);
    const sent: { url: string; role?: string }[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") sent.push({ url: request.url(), role: request.headers()["x-user-role"] });
    });

    await page.goto(`${t.url}/graphql`);
    await page.waitForSelector(".graphiql-container");
    expect(await page.locator(".graphiql-editor-tool").innerText()).toMatch(/"X-User-Role": "student"/);
    await page.locator(".graphiql-execute-button").click();
    const response = page.locator(".graphiql-response");
    await response.getByText("GraphiQL kite").waitFor();

    expect(await response.innerText()).toMatch(/"total": 1/);
    expect(sent.filter((request) => request.role === "student").length).toBeGreaterThan(0);
    expect(sent.every((request) => request.url === `${t.url}/graphql`)).toBe(true);
    expect(elsewhere).toEqual([]);
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT_DIR, "graphiql.png") });
    await page.close();
  });

  it("when a person runs a subscription and a project changes meanwhile, then GraphiQL shows the event from the WebSocket", async () => {
    const created = await t.http<{ data: { project_id: number } }>("POST", "/projects", {
      body: {
        project_name: "GraphiQL live",
        project_desc: "Watched in GraphiQL",
        company_id: 2,
        project_status: "planned",
        start_date: "2026-01-10",
        end_date: "2026-06-30",
      },
      headers: { "x-user-role": "student" },
    });
    const projectId = created.body.data.project_id;
    const page = await browser.newPage();
    const elsewhere = await allowOnlyOrigin(page, t.url);
    const sockets: string[] = [];
    page.on("websocket", (ws) => sockets.push(ws.url()));

    await page.goto(`${t.url}/graphql`);
    await page.waitForSelector(".graphiql-container");
    await page.evaluate((query) => {
      // In the page: CodeMirror 5 keeps its editor on its wrapper element.
      const inPage = globalThis as unknown as { document: { querySelector(selector: string): unknown } };
      const editor = inPage.document.querySelector(".graphiql-query-editor .CodeMirror") as {
        CodeMirror: { setValue(value: string): void };
      };
      editor.CodeMirror.setValue(query);
    }, `subscription Watch { projectChanged(projectId: ${projectId}, after_revision: 0) { cursor change { revision operation } project { project_status } } }`);
    // GraphiQL picks up the edited document's operation name as the editor reports the change.
    await page.waitForTimeout(500);
    await page.locator(".graphiql-execute-button").click();
    const response = page.locator(".graphiql-response");
    await response.getByText("createProject").waitFor();
    const changed = await t.http("PUT", `/projects/${projectId}/updateStatus`, {
      body: { project_status: "seen-live" },
      headers: { "x-user-role": "teacher" },
    });
    expect(changed.status).toBe(200);
    await response.getByText("seen-live").waitFor();

    expect(await response.innerText()).toMatch(/"operation": "updateProjectStatus"/);
    expect(sockets).toEqual([`${t.url.replace("http", "ws")}/graphql`]);
    expect(elsewhere).toEqual([]);
    await page.screenshot({ path: path.join(OUTPUT_DIR, "graphiql-subscription.png") });
    await page.close();
  });
});

describe("EXPLORER=sandbox", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ explorer: "sandbox" });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a browser asks for /graphql, then it gets Apollo Sandbox and no GraphiQL files are served", async () => {
    const res = await getHtml(t);

    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/embeddable-sandbox/);
    expect((await fetch(`${t.url}/graphiql/${graphiqlVersion}/graphiql.min.js`)).status).toBe(404);
  });
});

describe("in production", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, production: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a browser asks for /graphql, then there is no explorer page", async () => {
    const res = await getHtml(t);

    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).not.toMatch(/text\/html/);
    expect(await res.text()).not.toMatch(/graphiql|sandbox/i);
  });
});
