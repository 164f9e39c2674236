// seedDatabase(): writes the demo data set (seed-data.ts) through the domain services, so every row obeys the
// service's rules and gets its id from the counters. Idempotent: an entity whose natural key already exists is
// left alone (teachers by name, students by email, projects by company_id + name ignoring case), so a second run
// creates nothing and burns no ids.
import type { Page, PageRequest } from "../shared/pagination";
import { PAGE_MAX_LIMIT } from "../shared/pagination";
import { nameKey } from "../shared/validation";
import type { StatusWorkflow } from "../components/projects";
import type { Services } from "../services";
import { SEED_COMPANIES, SEED_DEFAULT_STATUSES, SEED_PROJECTS, SEED_STUDENTS, SEED_TEACHERS } from "./seed-data";

export interface SeedCount {
  created: number;
  present: number;
}

export interface SeedSummary {
  companies: number;
  teachers: SeedCount;
  students: SeedCount;
  projects: SeedCount;
  /** Teacher assignments made for newly created projects. */
  assigned: number;
}

export interface SeedOptions {
  /** The PROJECT_STATUS_WORKFLOW in force: projects are created in an initial status and walked to their target. */
  workflow?: StatusWorkflow;
}

export async function seedDatabase(services: Services, options: SeedOptions = {}): Promise<SeedSummary> {
  const summary: SeedSummary = {
    companies: SEED_COMPANIES.length,
    teachers: { created: 0, present: 0 },
    students: { created: 0, present: 0 },
    projects: { created: 0, present: 0 },
    assigned: 0,
  };

  // Teachers have no unique key; the seed treats the name as one. The first teacher of a name wins.
  const teacherIds = new Map<string, number>();
  for (const t of (await everyItem((page) => services.teachers.list(page))).reverse()) {
    teacherIds.set(t.teacher_name, t.teacher_id);
  }
  for (const teacher_name of SEED_TEACHERS) {
    if (teacherIds.has(teacher_name)) {
      summary.teachers.present++;
      continue;
    }
    const created = await services.teachers.create({ teacher_name });
    teacherIds.set(teacher_name, created.teacher_id);
    summary.teachers.created++;
  }

  const emails = new Set((await everyItem((page) => services.students.list({}, page))).map((s) => s.email));
  for (const student of SEED_STUDENTS) {
    if (emails.has(student.email)) {
      summary.students.present++;
      continue;
    }
    await services.students.create(student);
    emails.add(student.email);
    summary.students.created++;
  }

  const statuses = options.workflow ? options.workflow.statuses : SEED_DEFAULT_STATUSES;
  const existingNames = new Set<string>();
  for (const { company_id } of SEED_COMPANIES) {
    for (const p of await everyItem((page) => services.projects.list({ company_id }, page))) {
      existingNames.add(`${company_id}\u0000${nameKey(p.project_name)}`);
    }
  }
  for (const [i, spec] of SEED_PROJECTS.entries()) {
    if (existingNames.has(`${spec.company_id}\u0000${nameKey(spec.project_name)}`)) {
      summary.projects.present++;
      continue;
    }
    // Shifted every ten projects, so that a teacher's projects do not all share one status.
    const [initial, ...steps] = statusPath(options.workflow, statuses[(i + Math.floor(i / 10)) % statuses.length]);
    const { teacher, ...values } = spec;
    const project = await services.projects.create({ ...values, project_status: initial });
    summary.projects.created++;
    for (const project_status of steps) await services.projects.updateStatus(project.project_id, { project_status });
    if (teacher !== null) {
      await services.projects.assignTeacher(project.project_id, {
        new_teacher_id: teacherIds.get(SEED_TEACHERS[teacher])!,
      });
      summary.assigned++;
    }
  }
  return summary;
}

/** Statuses to go through to reach `target`: [target] without a workflow, else the shortest path from an
 *  initial status allowed by the workflow (just an initial status when the target cannot be reached). */
export function statusPath(workflow: StatusWorkflow | undefined, target: string): string[] {
  if (!workflow) return [target];
  const previous = new Map<string, string | null>();
  const queue = workflow.statuses.filter((s) => workflow.initial.has(s));
  for (const s of queue) previous.set(s, null);
  for (let i = 0; i < queue.length; i++) {
    const status = queue[i];
    if (status === target) break;
    for (const next of workflow.transitions.get(status) ?? []) {
      if (!previous.has(next)) {
        previous.set(next, status);
        queue.push(next);
      }
    }
  }
  if (!previous.has(target)) return [queue[0]];
  const path: string[] = [];
  for (let s: string | null = target; s !== null; s = previous.get(s)!) path.unshift(s);
  return path;
}

/** Every item of a paged list, walking pages of the maximum size. */
async function everyItem<T>(list: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let offset = 0; ; offset += PAGE_MAX_LIMIT) {
    const page = await list({ offset, limit: PAGE_MAX_LIMIT });
    items.push(...page.items);
    if (!page.has_more) return items;
  }
}

export function formatSummary(summary: SeedSummary): string[] {
  const line = (name: string, c: SeedCount) => `  ${name.padEnd(9)} ${c.created} created, ${c.present} already present`;
  return [
    line("teachers", summary.teachers),
    line("students", summary.students),
    line("projects", summary.projects),
    `  (projects span ${summary.companies} companies; ${summary.assigned} teacher assignments made)`,
  ];
}
