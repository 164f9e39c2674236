// The change rule is decided in the same atomic step as the change: while an admin moves projects from teacher 1 to
// teacher 2, teacher 1's status changes of the same projects, sent at the same moment, either land while the project
// is still theirs (before the reassignment in its history) or are FORBIDDEN and change nothing. A check made before
// the write and a reassignment committing in between would let a change land after it: the history would show
// teacher 1's change on a project already assigned to teacher 2.
import { AccessProjectHistoryDocument, AssignTeacherDocument, UpdateProjectStatusDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { JWT_AUTH } from "../helpers/tokens";
import { contractPolicy, insertProjects, insertTeachers, jwtHeaders, range, type Who } from "./support";

const PROJECTS = 50;
const ROUNDS = 4;
const TED: Who = { name: "ted", role: "teacher", sub: "ted", claims: { company_ids: [1], teacher_id: 1 } };
const ROOT: Who = { name: "root", role: "admin", sub: "root", claims: {} };

describe("the concurrent reassignment race", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, config: { accessPolicy: contractPolicy() } });
    await insertTeachers(t.db, [1, 2]);
  });
  afterAll(() => t.close());

  it.each(range(1, ROUNDS))(
    `round %i: when teacher 1 changes the status of ${PROJECTS} projects while an admin reassigns each of them to teacher 2, then no change of teacher 1 lands after the reassignment, and each refused one changed nothing`,
    async (round) => {
      const first = (round - 1) * PROJECTS + 1;
      const ids = range(first, first + PROJECTS - 1);
      await insertProjects(
        t.db,
        ids.map((project_id) => ({ project_id, company_id: 1, teacher_id: 1, project_status: "start" })),
      );
      const [ted, root] = await Promise.all([jwtHeaders(TED), jwtHeaders(ROOT)]);

      // Both requests of a project are sent together, every project at once; the statuses tell each change apart.
      const outcomes = await Promise.all(
        ids.flatMap((projectId) => [
          t
            .gql(AssignTeacherDocument, { projectId, input: { new_teacher_id: 2 } }, root)
            .then((r) => ({ projectId, who: "root", payload: r.data!.assignTeacher })),
          t
            .gql(UpdateProjectStatusDocument, { projectId, input: { project_status: `by-ted-${projectId}` } }, ted)
            .then((r) => ({ projectId, who: "ted", payload: r.data!.updateProjectStatus })),
        ]),
      );

      for (const projectId of ids) {
        const reassigned = outcomes.find((o) => o.projectId === projectId && o.who === "root")!.payload;
        const changed = outcomes.find((o) => o.projectId === projectId && o.who === "ted")!.payload;
        expect(reassigned.success).toBe(true);
        expect(changed.success ? "success" : changed.code).toMatch(/^(success|FORBIDDEN)$/);

        const history = await t.gql(AccessProjectHistoryDocument, { projectId }, root);
        // Oldest first; revision 1 (the insert) is not in the log.
        const entries = history.data!.project!.history.items.slice().reverse();
        const reassignment = entries.find((e) => e.operation === "assignTeacher")!;
        const tedsChanges = entries.filter((e) => e.actor_id === "ted");
        const stored = await t.db.models.Project.findOne({ project_id: projectId }).lean();
        if (changed.success) {
          expect(tedsChanges.map((e) => e.revision)).toEqual([2]);
          expect(reassignment.revision).toBe(3);
          expect(stored).toMatchObject({ teacher_id: 2, project_status: `by-ted-${projectId}`, revision: 3 });
        } else {
          expect(tedsChanges).toEqual([]);
          expect(reassignment.revision).toBe(2);
          expect(stored).toMatchObject({ teacher_id: 2, project_status: "start", revision: 2 });
        }
      }
    },
  );
});
