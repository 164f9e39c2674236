// When a list of projects is resolved with each project's teacher and each teacher's projects, then the number of
// database commands does not grow with the number of projects: the page reads its teachers in its own command (an
// aggregation with $lookup), and the per-request DataLoaders batch the other relation (Teacher.projects: one
// page-sized command per distinct teacher).
import type { mongo } from "mongoose";
import { openDatabase } from "../../src/persistence";
import { ProjectsWithTeachersDocument } from "../generated/graphql";
import { startTestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, insertProjects, insertTeachers, range } from "./support";

interface Measurement {
  /** "command collection" of each command sent to the app's database during the one request, sorted. */
  commands: string[];
  projects: number;
}

/** Fills a fresh database with `projects` projects spread over `teachers` teachers (every 5th unassigned),
 *  then counts the commands the driver sends to that database while one ProjectsWithTeachers request runs. */
async function measure(projects: number, teachers: number): Promise<Measurement> {
  const dbName = testDbName();
  const db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
  const t = await startTestApp({ db });
  try {
    await insertTeachers(db, range(1, teachers));
    await insertProjects(
      db,
      range(1, projects).map((project_id) => ({
        project_id,
        teacher_id: project_id % 5 === 0 ? null : ((project_id * 7) % teachers) + 1,
      })),
    );

    const seen: mongo.CommandStartedEvent[] = [];
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName === dbName) seen.push(event);
    };
    const client = db.connection.getClient();
    client.on("commandStarted", listener);
    let res;
    try {
      res = await t.gql(ProjectsWithTeachersDocument, { limit: 100 }, ADMIN);
    } finally {
      client.off("commandStarted", listener);
    }

    // The answer is right, not just cheap: every project with its teacher, every teacher with its projects.
    expect(res.errors).toBeUndefined();
    const items = res.data!.projects.items;
    expect(items).toHaveLength(projects);
    for (const item of items) {
      const expectedTeacher = item.project_id % 5 === 0 ? null : ((item.project_id * 7) % teachers) + 1;
      expect(item.teacher?.teacher_id ?? null).toBe(expectedTeacher);
      if (item.teacher) {
        const own = items.filter((p) => p.teacher?.teacher_id === item.teacher!.teacher_id).map((p) => p.project_id);
        expect(item.teacher.projects.map((p) => p.project_id)).toEqual(own);
      }
    }
    return { commands: seen.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`).sort(), projects };
  } finally {
    await t.app.close();
    await dropTestDatabase(db);
  }
}

describe("no N+1 on Project.teacher and Teacher.projects", () => {
  it("when 5 and then 50 projects of the same 3 teachers are listed with teachers and their projects, then the same commands are sent", async () => {
    const small = await measure(5, 3);
    const large = await measure(50, 3);
    expect(small.commands.length).toBe(large.commands.length);
    expect(small.commands).toEqual(large.commands);
    // The page with its teachers (an aggregate with $lookup) and its total (countDocuments is an aggregate too),
    // one page of projects for each of the 3 teachers.
    expect(large.commands).toEqual([
      "aggregate projects",
      "aggregate projects",
      "find projects",
      "find projects",
      "find projects",
    ]);
  });

  it("when several teachers share projects, then teachers come with the page's command and each teacher's projects in one", async () => {
    const { commands } = await measure(30, 6);
    expect(commands.filter((c) => c === "find teachers")).toHaveLength(0);
    expect(commands.filter((c) => c === "aggregate projects")).toHaveLength(2);
    expect(commands.filter((c) => c === "find projects")).toHaveLength(6);
  });
});
