// The frontend recipe's live view (examples/frontend/src/watch-projects.ts): its subscription is typed by its
// selection, and against the real service it receives changes as committed; when the server drops the socket
// (a restart), graphql-ws reconnects by itself and the watch resumes after its last event — nothing missed or repeated.
// The service loads the recipe's manifest (the watch names its subscription by id); the test's own setup requests
// send their text, so only-trusted is off here (tests/frontend/trusted-documents.test.ts runs it on).
import WebSocket from "ws";
import { startTestApp, type TestApp } from "../helpers/app";
import { compileRecipeWith, recipeManifest } from "./support";
import { wsUrl } from "../helpers/live";
import { createProject, TEACHER } from "../operations/support";
import { UpdateProjectStatusDocument } from "../generated/graphql";

const PROBE = `
import { connectLive, watchProjects } from "./watch-projects";
export function probe() {
  const client = connectLive("ws://x/graphql", () => ({ "x-user-role": "student" }));
  return watchProjects(client, {
    filter: { project_status: "active" },
    onChange(event) {
      const status: string = event.project.project_status;
      const revision: number = event.change.revision;
      // @ts-expect-error project_desc is not selected by the subscription
      void event.project.project_desc;
      return { status, revision };
    },
  });
}
// @ts-expect-error company_id must be a number
watchProjects(connectLive("ws://x/graphql", () => ({})), { filter: { company_id: "1" }, onChange: () => undefined });
`;

describe("a frontend's live view (graphql-ws with a typed subscription)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      config: { subscriptionPollMs: 50, trustedDocuments: recipeManifest(), trustedDocumentsOnly: false },
    });
  });
  afterAll(() => t.close());

  it("when the live view compiles against its generated types, then each event is typed by the subscription's selection", () => {
    expect(compileRecipeWith("__live_probe__.ts", PROBE)).toEqual([]);
  });

  it("when the server drops the socket mid-watch, then the client reconnects and resumes after its last event", async () => {
    const { connectLive, watchProjects } = await import("../../examples/frontend/src/watch-projects");
    const project = await createProject(t, { project_status: "s0" });
    const client = connectLive(wsUrl(t), () => ({ "x-user-role": "student" }), {
      webSocketImpl: WebSocket,
      retryWait: () => new Promise((resolve) => setTimeout(resolve, 200)),
    });
    const statuses: string[] = [];
    const setStatus = (project_status: string) =>
      t.gql(UpdateProjectStatusDocument, { projectId: project.project_id, input: { project_status } }, TEACHER);
    const until = async (n: number) => {
      for (let i = 0; i < 200 && statuses.length < n; i++) await new Promise((r) => setTimeout(r, 50));
    };
    // From the project's creation, so nothing depends on when the subscription reaches the server.
    const [{ projectChanged }] = await new Promise<{ projectChanged: { cursor: string } }[]>((resolve) => {
      const got: { projectChanged: { cursor: string } }[] = [];
      const stop = client.subscribe<{ projectChanged: { cursor: string } }>(
        { query: `subscription { projectChanged(projectId: ${project.project_id}, after_revision: 0) { cursor } }` },
        {
          next: ({ data }) => (got.push(data!), stop(), resolve(got)),
          error: () => undefined,
          complete: () => undefined,
        },
      );
    });
    const watch = watchProjects(client, {
      after: projectChanged.cursor,
      onChange: (event) => statuses.push(event.project.project_status),
    });

    await setStatus("s1");
    await until(1);
    // A restart as the client sees it: its socket closes with 1012 (service restart).
    for (const socket of t.app.websocketServer.clients) socket.close(1012, "Service restart");
    await setStatus("s2");
    await setStatus("s3");
    await until(3);
    await setStatus("s4");
    await until(4);

    expect(statuses).toEqual(["s1", "s2", "s3", "s4"]);
    expect(watch.cursor).toEqual(expect.any(String));
    watch.stop();
    await client.dispose();
  });
});
