// Deploying with trusted documents, as the recipe says: the frontend's build writes its manifest
// (examples/frontend/src/gql/persisted-documents.json), the service starts with TRUSTED_DOCUMENTS naming it (and
// TRUSTED_DOCUMENTS_ONLY at its default, true). Then the recipe's operations run, named by their ids, over HTTP and
// WebSocket, while any other document — an ad-hoc query, or even the text of one of the recipe's own documents — is
// refused with BAD_REQUEST.
import WebSocket from "ws";
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig } from "../../src/config";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { wsUrl } from "../helpers/live";
import { RECIPE_MANIFEST } from "./support";

const STUDENT = { "x-user-role": "student" };

describe("the frontend recipe against a service that runs only its trusted documents", () => {
  let t: TestApp;
  beforeAll(async () => {
    const config = loadConfig({ TRUSTED_DOCUMENTS: RECIPE_MANIFEST }, { statusWorkflow: parseStatusWorkflow });
    expect(config.trustedDocumentsOnly).toBe(true);
    t = await startTestApp({
      config: {
        trustedDocuments: config.trustedDocuments,
        trustedDocumentsOnly: config.trustedDocumentsOnly,
        subscriptionPollMs: 50,
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("when the recipe watches projects and submits the form, then both run by id and the change arrives", async () => {
    const { submitProjectForm } = await import("../../examples/frontend/src/create-project");
    const { connectLive, watchProjects } = await import("../../examples/frontend/src/watch-projects");
    const client = connectLive(wsUrl(t), () => STUDENT, { webSocketImpl: WebSocket, retryAttempts: 0 });
    const names: string[] = [];
    const errors: unknown[] = [];
    const watch = watchProjects(client, {
      onChange: (event) => names.push(event.project.project_name),
      onError: (error) => errors.push(error),
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));

      const state = await submitProjectForm(
        `${t.url}/graphql`,
        {
          project_name: "Trusted form",
          project_desc: "Named by its id",
          company_id: 1,
          project_status: "planned",
          start_date: "2026-01-10",
          end_date: "2026-02-10",
        },
        STUDENT,
      );
      for (let i = 0; i < 100 && names.length === 0; i++) await new Promise((r) => setTimeout(r, 50));

      expect(state).toEqual({ projectId: expect.any(Number), fieldMessages: {}, fieldReasons: {}, banner: [] });
      expect(names).toEqual(["Trusted form"]);
      expect(errors).toEqual([]);
    } finally {
      watch.stop();
      await client.dispose();
    }
  });

  it("when a client sends an ad-hoc query, or the text of one of the recipe's documents, then it is refused with BAD_REQUEST", async () => {
    const { CreateProjectMutation } = await import("../../examples/frontend/src/create-project");
    const refused = {
      status: 400,
      body: {
        errors: [
          expect.objectContaining({
            message: expect.stringMatching(/^Only trusted documents run on this service/),
            extensions: { code: "BAD_REQUEST", reason: "NOT_TRUSTED" },
          }),
        ],
      },
    };

    const adHoc = await t.http<GraphQLBody>("POST", "/graphql", {
      body: { query: "{ projects(limit: 100) { items { project_desc } } }" },
      headers: STUDENT,
    });
    const ownText = await t.http<GraphQLBody>("POST", "/graphql", {
      body: { query: CreateProjectMutation.toString(), variables: { input: {} } },
      headers: STUDENT,
    });

    expect(adHoc).toEqual(refused);
    expect(ownText).toEqual(refused);
  });
});
