// Per-request DataLoaders of project relations: one batched query per relation (and page) per request. Each set of
// loaders reads under one caller's row rules (ACCESS_POLICY), fixed when the request's loaders are made, so a cached
// key never holds what another caller may read.
import DataLoader from "dataloader";
import type { Connection, ConnectionRequest } from "../../shared/keyset-pagination";
import type { OrderInput } from "../../shared/list-order";
import type { WhereInput } from "../../shared/list-where";
import type { ProjectAccess } from "./project.access";
import type { ProjectField, ProjectRecord, ProjectService } from "./project.service";

/** One page of one teacher's projects (Teacher.projects(offset, limit)), and the fields to read (all: undefined). */
export interface TeacherProjectsKey extends ListShape {
  teacher_id: number;
  offset: number;
  limit: number;
  fields?: readonly ProjectField[];
}

/** A list's where and order, as the GraphQL arguments gave them (null: none). */
interface ListShape {
  where?: WhereInput | null;
  orderBy?: OrderInput | null;
}

/** One cursor page of one teacher's projects (Teacher.projectsConnection), and whether to count them. */
export interface TeacherProjectsConnectionKey extends ConnectionRequest, ListShape {
  teacher_id: number;
  totalCount: boolean;
}

export interface ProjectLoaders {
  /** A page of the projects of each teacher (Teacher.projects). */
  projectsByTeacherId: DataLoader<TeacherProjectsKey, ProjectRecord[], string>;
  /** A cursor page of the projects of each teacher (Teacher.projectsConnection). */
  projectsConnectionByTeacherId: DataLoader<TeacherProjectsConnectionKey, Connection<ProjectRecord>, string>;
  /** A project by id (Query.node, Query.nodes); null for an unknown id. */
  projectById: DataLoader<number, ProjectRecord | null>;
}

export function createProjectLoaders(projects: ProjectService, access: ProjectAccess): ProjectLoaders {
  return {
    projectsByTeacherId: new DataLoader(
      (keys) =>
        byPage(
          keys,
          ({ offset, limit, fields, where, orderBy }) => ({ offset, limit, fields, where, orderBy }),
          (teacherIds, { fields, where, orderBy, ...page }) =>
            projects.findByTeacherIds(teacherIds, page, { fields, access, where, orderBy }),
        ),
      {
        cacheKeyFn: (key) =>
          `${key.teacher_id}:${key.offset}:${key.limit}:${key.fields?.join(",") ?? "*"}:${JSON.stringify([key.where, key.orderBy])}`,
      },
    ),
    projectsConnectionByTeacherId: new DataLoader(
      (keys) =>
        byPage(keys, connectionPageOf, (teacherIds, { totalCount, where, orderBy, ...request }) =>
          projects.pageByTeacherIds(teacherIds, request, { total: totalCount, access, where, orderBy }),
        ),
      { cacheKeyFn: (key) => JSON.stringify([key.teacher_id, connectionPageOf(key)]) },
    ),
    projectById: new DataLoader((ids) => projects.findByIds(ids, { access })),
  };
}

/** A connection key without its teacher: what the keys of one batch query share. */
function connectionPageOf({ first, after, last, before, totalCount, where, orderBy }: TeacherProjectsConnectionKey) {
  return {
    first: first ?? null,
    after: after ?? null,
    last: last ?? null,
    before: before ?? null,
    totalCount,
    where,
    orderBy,
  };
}

/**
 * Usually every key of a batch asks for the same page: one query. Keys with other pages (aliases with other
 * arguments) get a query per distinct page; a refused page fails only its own keys. Results are in key order.
 */
async function byPage<Key extends { teacher_id: number }, Page, Result>(
  keys: readonly Key[],
  pageOf: (key: Key) => Page,
  load: (teacherIds: number[], page: Page) => Promise<Result[]>,
): Promise<(Result | Error)[]> {
  const groups = new Map<string, { page: Page; at: number[] }>();
  keys.forEach((key, at) => {
    const page = pageOf(key);
    const id = JSON.stringify(page);
    const group = groups.get(id) ?? { page, at: [] };
    group.at.push(at);
    groups.set(id, group);
  });
  const results: (Result | Error)[] = new Array(keys.length);
  await Promise.all(
    [...groups.values()].map(async ({ page, at }) => {
      try {
        const lists = await load(
          at.map((i) => keys[i].teacher_id),
          page,
        );
        at.forEach((i, n) => (results[i] = lists[n]));
      } catch (err) {
        for (const i of at) results[i] = err as Error;
      }
    }),
  );
  return results;
}
