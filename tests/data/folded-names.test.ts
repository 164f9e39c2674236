// Folded names (contract, sixth revision, "Names"): a project created through the API stores its name folded
// (name_folded), and documents stored before the field existed get it when the database opens, once (db:check then
// finds nothing), so a where on a name finds them.
import { openDatabase } from "../../src/persistence";
import { storedProjectProblems } from "../../src/components/projects";
import { BoardProjectsDocument, CreateProjectDocument } from "../generated/graphql";
import { startTestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, STUDENT } from "../lists/support";

describe("folded names are stored and brought up", () => {
  it("when documents without name_folded are opened, then they get it, and lists find them by a folded prefix", async () => {
    const dbName = testDbName();
    const first = await openDatabase(testMongoUri(), { dbName });
    const at = new Date("2026-01-01T00:00:00Z");
    await first.connection.db!.collection("projects").insertOne({
      _id: "1",
      project_id: 1,
      project_name: "Énergie Solaire",
      name_key: "énergie solaire",
      project_desc: "Stored by an earlier version",
      company_id: 1,
      project_status: "proposed",
      project_url: null,
      start_date: "2025-01-01",
      end_date: "2025-06-30",
      teacher_id: null,
      revision: 1,
      created_by: null,
      created_at: at,
      updated_at: at,
    } as never);
    await first.connection
      .db!.collection("teachers")
      .insertOne({ _id: "1", teacher_id: 1, teacher_name: "Zoë" } as never);
    await first.connection.db!.collection("students").insertOne({
      _id: "1",
      student_id: 1,
      student_name: "Ángel",
      email: "angel@school.test",
      class_code: "C1",
    } as never);
    // As a database of an earlier version: the markers of this upgrade are not there yet.
    await first.connection
      .db!.collection("migrations")
      .deleteMany({ _id: { $regex: /^(name_folded|projects-archived-flag)/ } } as never);
    await first.close();

    const db = await openDatabase(testMongoUri(), { dbName });
    const t = await startTestApp({ db });
    try {
      const project = await db.models.Project.findOne({ project_id: 1 }).lean();
      expect(project!.name_folded).toBe("energie solaire");
      expect(storedProjectProblems(project as never)).toEqual([]);
      expect((await db.models.Teacher.findOne({ teacher_id: 1 }).lean())!.name_folded).toBe("zoe");
      expect((await db.models.Student.findOne({ student_id: 1 }).lean())!.name_folded).toBe("angel");
      const res = await t.gql(BoardProjectsDocument, { where: { project_name: { startsWith: "ENER" } } }, ADMIN);
      expect(res.data!.projects.items.map((p) => p.project_id)).toEqual([1]);

      const created = await t.gql(
        CreateProjectDocument,
        {
          input: {
            project_name: "Öko Haus",
            project_desc: "Made by the test",
            company_id: 2,
            project_status: "proposed",
            start_date: "2026-01-01",
            end_date: "2026-02-01",
          },
        },
        STUDENT,
      );
      const id = created.data!.createProject.data!.project_id;
      expect((await db.models.Project.findOne({ project_id: id }).lean())!.name_folded).toBe("oko haus");
    } finally {
      await t.app.close();
      await dropTestDatabase(db);
    }
  });
});
