// Live updates of a project's whole life (contract, sixth revision): archiving and unarchiving are changes like any
// other for subscribers, and a deleted project's last entry, deleteProject, reaches them and their replays, with the
// project as it was.
import { ProjectChangedDocument, ProjectChangesDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { liveClient, subscribe, type LiveClient } from "../helpers/live";
import { ADMIN, createProject } from "../operations/support";

describe("live updates of archive, unarchive and delete", () => {
  let t: TestApp;
  const clients: LiveClient[] = [];
  beforeAll(async () => {
    t = await startTestApp({ config: { subscriptionPollMs: 50 } });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await t.close();
  });

  const client = () => {
    const c = liveClient(t, ADMIN);
    clients.push(c);
    return c;
  };
  const mutate = async (name: string, id: number) => {
    const res = await t.http<{ data: Record<string, { success: boolean }> }>("POST", "/graphql", {
      body: { query: `mutation ($id: Int!) { ${name}(projectId: $id) { success } }`, variables: { id } },
      headers: ADMIN,
    });
    expect(res.body.data[name].success).toBe(true);
  };

  it("when a project is archived, unarchived and deleted, then its subscribers get the three changes in order, live and replayed, the last with the project as it was", async () => {
    const project = await createProject(t, { company_id: 31 });
    const live = subscribe(client(), ProjectChangedDocument, { projectId: project.project_id, afterRevision: 1 });
    const all = subscribe(client(), ProjectChangesDocument, { filter: { company_id: 31 } });
    // Both subscriptions are live before the changes (a first change proves it).
    await mutate("archiveProject", project.project_id);
    const [archived] = await live.received(1);
    expect(archived.projectChanged.change).toMatchObject({ revision: 2, operation: "archiveProject" });

    await mutate("unarchiveProject", project.project_id);
    await mutate("deleteProject", project.project_id);

    const events = (await live.received(3)).map((e) => e.projectChanged);
    expect(events.map((e) => [e.change.revision, e.change.operation])).toEqual([
      [2, "archiveProject"],
      [3, "unarchiveProject"],
      [4, "deleteProject"],
    ]);
    expect(events[2].project).toMatchObject({
      project_id: project.project_id,
      project_name: project.project_name,
      revision: 4,
    });
    const everyOne = (await all.received(3)).map((e) => e.projectChanges.change.operation);
    expect(everyOne).toEqual(["archiveProject", "unarchiveProject", "deleteProject"]);

    // A replay after the deletion, from the archive's cursor: the rest of its life, the deletion last.
    const replay = subscribe(client(), ProjectChangesDocument, {
      filter: { company_id: 31 },
      after: archived.projectChanged.cursor,
    });
    const replayed = (await replay.received(2)).map((e) => e.projectChanges.change.operation);
    expect(replayed).toEqual(["unarchiveProject", "deleteProject"]);
    // Its own history is no longer readable: the project is gone.
    const gone = subscribe(client(), ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
    await expect(gone.received(1, 2_000)).rejects.toThrow(/NOT_FOUND/);
  });
});
