// The benches write projects straight into the collections (bench/bench-database.ts). What they write must be what
// the service would store: records npm run db:check accepts, each with its creation in the change log, read back by
// the service like any other.
import { seedProjects } from "../../bench/bench-database";
import { checkDatabase, type DatabaseProblem } from "../../src/db/db-check";
import { createServices } from "../../src/services";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { silentLogger } from "../helpers/fixtures";
import type { Database } from "../../src/persistence";

describe("the benches' seeded projects", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
    await seedProjects(db, 30, { companies: 5, statuses: ["active", "done"], teachers: null });
  });
  afterAll(() => dropTestDatabase(db));

  it("when npm run db:check's rules read them, then they find no problem", async () => {
    const problems: DatabaseProblem[] = [];

    const summary = await checkDatabase(
      db,
      (p) => problems.push(p),
      () => undefined,
    );

    expect(problems).toEqual([]);
    expect(summary.documents).toBe(60);
  });

  it("when the service reads and changes them, then each has its creation in its history and new ids follow them", async () => {
    const services = createServices(db, undefined, silentLogger);

    const history = await services.projects.history({ project_id: 7, revision: 1 });
    const created = await services.projects.create({
      project_name: "After the seed",
      project_desc: "d",
      company_id: 1,
      project_status: "active",
      start_date: "2026-01-01",
      end_date: "2026-02-01",
    });
    const changed = await services.projects.updateStatus(7, { project_status: "planned" });

    expect(history.items.map((i) => [i.revision, i.operation])).toEqual([[1, "createProject"]]);
    expect(created.project_id).toBe(31);
    expect(changed.revision).toBe(2);
  });
});
