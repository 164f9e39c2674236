// Per-request DataLoaders of project relations: one batched query per relation (and page) per request.
import DataLoader from "dataloader";
import type { ProjectRecord, ProjectService } from "./project.service";

/** One page of one teacher's projects (Teacher.projects(offset, limit)). */
export interface TeacherProjectsKey {
  teacher_id: number;
  offset: number;
  limit: number;
}

export interface ProjectLoaders {
  /** A page of the projects of each teacher (Teacher.projects). */
  projectsByTeacherId: DataLoader<TeacherProjectsKey, ProjectRecord[], string>;
}

export function createProjectLoaders(projects: ProjectService): ProjectLoaders {
  return {
    projectsByTeacherId: new DataLoader(
      async (keys) => {
        // Keys are grouped by page (aliases may ask other pages); each group costs one page-sized query per distinct
        // teacher (ProjectRepository.findByTeacherIds); a refused page fails only its own keys.
        const byPage = new Map<string, { offset: number; limit: number; at: number[] }>();
        keys.forEach((key, at) => {
          const pageKey = `${key.offset}:${key.limit}`;
          const group = byPage.get(pageKey) ?? { offset: key.offset, limit: key.limit, at: [] };
          group.at.push(at);
          byPage.set(pageKey, group);
        });
        const results: (ProjectRecord[] | Error)[] = new Array(keys.length);
        await Promise.all(
          [...byPage.values()].map(async ({ offset, limit, at }) => {
            try {
              const lists = await projects.findByTeacherIds(
                at.map((i) => keys[i].teacher_id),
                { offset, limit },
              );
              at.forEach((i, n) => (results[i] = lists[n]));
            } catch (err) {
              for (const i of at) results[i] = err as Error;
            }
          }),
        );
        return results;
      },
      { cacheKeyFn: (key) => `${key.teacher_id}:${key.offset}:${key.limit}` },
    ),
  };
}
