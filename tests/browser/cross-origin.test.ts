// A frontend on another origin, in a real browser (Chromium): a page served from its own port calls /graphql and a
// REST route with a bearer token and X-User-Role and shows the answers; the test reads the page. The browser does
// the CORS work (preflight, reading the answer), so this proves what a frontend on localhost:5173 experiences.
import { startTestApp, type GraphQLBody, type RestBody, type TestApp } from "../helpers/app";
import { JWT_AUTH, token } from "../helpers/tokens";
import { launchChromium, servePage, type Browser, type PageServer } from "./chromium";

/** The page's script: calls the API named in ?api= with the token in ?token=, then writes what it got into #out. */
const FRONTEND_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>frontend</title><link rel="icon" href="data:,"></head>
<body><pre id="out">running</pre>
<script>
  const params = new URLSearchParams(location.search);
  const api = params.get("api");
  const headers = { "content-type": "application/json", "x-user-role": "student", authorization: "Bearer " + params.get("token") };
  async function call(label, url, init) {
    try {
      const response = await fetch(url, init);
      return label + " " + response.status + " " + (await response.text()).trim();
    } catch (error) {
      return label + " failed: " + error;
    }
  }
  (async () => {
    const id = Number(params.get("project"));
    const lines = [
      await call("graphql", api + "/graphql", {
        method: "POST",
        headers,
        body: JSON.stringify({ query: "query($id: Int!) { project(projectId: $id) { project_name project_status } }", variables: { id } }),
      }),
      await call("rest", api + "/projects/" + id + "/updateStatus", {
        method: "PUT",
        headers,
        body: JSON.stringify({ project_status: "in_progress" }),
      }),
    ];
    const out = document.getElementById("out");
    out.textContent = lines.join("\\n");
    out.setAttribute("data-done", "true");
  })();
</script></body></html>`;

let browser: Browser;
let frontend: PageServer;
beforeAll(async () => {
  browser = await launchChromium();
  frontend = await servePage(FRONTEND_PAGE);
});
afterAll(async () => {
  await frontend?.close();
  await browser?.close();
});

/** Opens the frontend page against `api` and returns its text once both calls finished. */
async function runFrontend(api: TestApp, projectId: number): Promise<string[]> {
  const page = await browser.newPage();
  try {
    const query = new URLSearchParams({ api: api.url, token: await token(["student"]), project: String(projectId) });
    await page.goto(`${frontend.origin}/?${query}`);
    await page.waitForSelector("#out[data-done=true]");
    return (await page.textContent("#out"))!.split("\n");
  } finally {
    await page.close();
  }
}

async function createProject(t: TestApp, name: string): Promise<number> {
  const res = await t.http<RestBody<{ project_id: number }>>("POST", "/projects", {
    body: {
      project_name: name,
      project_desc: "Made for the browser test",
      company_id: 5,
      project_status: "planned",
      start_date: "2026-01-10",
      end_date: "2026-06-30",
    },
    headers: { authorization: `Bearer ${await token(["student"])}`, "x-user-role": "student" },
  });
  expect(res.status).toBe(201);
  return res.body.data!.project_id;
}

async function statusOf(t: TestApp, projectId: number): Promise<string> {
  const res = await t.http<GraphQLBody<{ project: { project_status: string } }>>(
    "GET",
    `/graphql?query=${encodeURIComponent(`{ project(projectId: ${projectId}) { project_status } }`)}`,
    {
      headers: { authorization: `Bearer ${await token(["admin"])}`, "x-user-role": "admin" },
    },
  );
  return res.body.data!.project.project_status;
}

describe("a page on another origin, outside production with the default CORS origins", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when it calls /graphql and a REST route with a bearer token and X-User-Role, then it shows both answers and the change is stored", async () => {
    const projectId = await createProject(t, "Browser solar car");

    const [graphql, rest] = await runFrontend(t, projectId);

    expect(graphql).toBe(
      `graphql 200 {"data":{"project":{"project_name":"Browser solar car","project_status":"planned"}}}`,
    );
    expect(rest).toMatch(/^rest 200 /);
    expect(JSON.parse(rest.slice("rest 200 ".length))).toMatchObject({
      success: true,
      message: "Project status updated",
      data: { project_id: projectId, project_status: "in_progress" },
    });
    expect(await statusOf(t, projectId)).toBe("in_progress");
  });
});

describe("a page on an origin CORS_ORIGINS does not list", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, corsOrigins: ["https://app.example.org"] });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when it calls /graphql and a REST route, then the browser refuses both and nothing changes", async () => {
    const projectId = await createProject(t, "Refused solar car");

    const [graphql, rest] = await runFrontend(t, projectId);

    expect(graphql).toBe("graphql failed: TypeError: Failed to fetch");
    expect(rest).toBe("rest failed: TypeError: Failed to fetch");
    // The refused preflight kept the browser from sending the PUT at all.
    expect(await statusOf(t, projectId)).toBe("planned");
  });
});
