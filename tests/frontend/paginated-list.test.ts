// The frontend recipe's paginated list (examples/frontend/src/project-list.ts): Apollo Client 4 over
// projectsConnection with relayStylePagination() as the only cache configuration. Its data is typed by its
// selection, loadMore appends page after page until the end, and a mutation elsewhere updates the list's items.
import { ClientUpdateProjectStatusDocument } from "../generated/graphql";
import { watch } from "../helpers/apollo";
import { startTestApp, type TestApp } from "../helpers/app";
import { compileRecipeWith } from "./support";
import { createProject, STUDENT } from "../operations/support";

const PROBE = `
import { createApolloClient, watchProjectList } from "./project-list";
export function probe() {
  const list = watchProjectList(createApolloClient("http://x/graphql", { "x-user-role": "student" }), {
    filter: { company_id: 1 },
    pageSize: 10,
  });
  return list.query.subscribe(({ data, dataState }) => {
    if (dataState !== "complete") return;
    const name: string = data.projectsConnection.edges[0].node.project_name;
    const teacher: string | undefined = data.projectsConnection.edges[0].node.teacher?.teacher_name;
    // @ts-expect-error project_desc is not selected by the query
    void data.projectsConnection.edges[0].node.project_desc;
    return { name, teacher };
  });
}
// @ts-expect-error company_id must be a number
watchProjectList(createApolloClient("http://x/graphql", {}), { filter: { company_id: "1" } });
`;

describe("a frontend's paginated list (Apollo Client 4, projectsConnection, relayStylePagination)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("when the list compiles against its generated types, then its data is typed by the query's selection", () => {
    expect(compileRecipeWith("__list_probe__.ts", PROBE)).toEqual([]);
  });

  it("when the list loads more until the end, then it shows every matching project once, and a mutation updates it", async () => {
    const { createApolloClient, watchProjectList } = await import("../../examples/frontend/src/project-list");
    const company_id = 3_000_000 + Math.floor(Math.random() * 1_000_000);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createProject(t, { company_id })).project_id);

    const client = createApolloClient(`${t.url}/graphql`, STUDENT);
    const list = watchProjectList(client, { filter: { company_id }, pageSize: 2 });
    const shown = watch(list.query);
    try {
      await shown.until((d) => d.projectsConnection.edges.length === 2);
      const loads: boolean[] = [];
      for (let more = true; more;) {
        more = await list.loadMore();
        loads.push(more);
      }
      expect(loads).toEqual([true, true, false]);
      const data = await shown.until((d) => d.projectsConnection.edges.length === 5);
      expect(data.projectsConnection.edges.map((e) => e.node.project_id)).toEqual(ids);
      expect(data.projectsConnection.pageInfo.hasNextPage).toBe(false);

      // Another view changes a project through the same client (any caller may change a status): the list shows it.
      await client.mutate({
        mutation: ClientUpdateProjectStatusDocument,
        variables: { projectId: ids[3], status: "done" },
      });
      await shown.until((d) => d.projectsConnection.edges[3].node.project_status === "done");
    } finally {
      shown.stop();
      client.stop();
    }
  });
});
