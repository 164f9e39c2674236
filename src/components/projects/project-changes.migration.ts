// Copies the revisions that versions before the change log stored (`project_revisions`) into the change log
// (`project_changes`), once, at start-up. Insert-only and idempotent: each revision is appended under its own `_id`
// ("<project>:<n>"), so a duplicate means it was already copied (by an earlier, interrupted start or by another
// instance starting at the same time) and is skipped. When every revision is in, a marker document in `migrations`
// makes later starts skip the scan. Instances of the older version must be stopped before this version starts:
// a revision they write after the copy would not reach the log.
//
// Each copied change gets the project's state after it (the log's snapshot): the project as created (its stored
// state with the later revisions' changes undone), then each revision's new values applied in order. Positions follow
// the revisions' times, and a project's revisions keep their order (a later revision never gets a lower position).
import type { Connection } from "mongoose";
import type { Progress } from "../../db/embedded-server";
import { isDuplicateKeyError } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import type { ProjectChangeLog } from "./project-changes.log";
import type { ProjectState } from "./project-changes.model";
import { withStoredDefaults } from "../../db/stored-fields";
import { PROJECT_FIELDS } from "./project.fields";
import type { ProjectDoc, ProjectModel, ProjectRevisionDoc, ProjectRevisionModel } from "./project.model";

const MARKER = "project_revisions-to-project_changes";
/** Revisions copied with one insert. */
const BATCH = 500;
/** How often a long copy reports how far it is. */
const PROGRESS_EVERY_MS = 5000;

/**
 * Returns how many revisions it copied (0 when the marker says it is done). A copy reports its start, its progress
 * every few seconds and its end through `progress` (the service logs them): it runs before the service listens.
 */
export async function migrateProjectRevisions(
  connection: Connection,
  models: { Project: ProjectModel; ProjectRevision: ProjectRevisionModel },
  log: ProjectChangeLog,
  progress: Progress = () => {},
): Promise<number> {
  const markers = connection.db!.collection<{ _id: string; at: Date }>("migrations");
  if (await markers.findOne({ _id: MARKER })) return 0;

  // A database that never held revisions has no such collection (the service no longer creates it): nothing to read.
  const exists = await connection
    .db!.listCollections({ name: models.ProjectRevision.collection.collectionName }, { nameOnly: true })
    .hasNext();
  const legacy = exists ? await models.ProjectRevision.find({}).lean<ProjectRevisionDoc[]>() : [];
  let copied = 0;
  if (legacy.length > 0) {
    const started = Date.now();
    let reportedAt = started;
    progress(
      `Copying ${revisions(legacy.length)} from project_revisions into the change log ` +
        "(once; the service starts when it is done)",
    );
    const chains = new Map<number, ProjectRevisionDoc[]>();
    for (const revision of legacy) {
      const chain = chains.get(revision.project_id) ?? [];
      chain.push(revision);
      chains.set(revision.project_id, chain);
    }
    // The projects, BATCH ids a query: one `$in` of 20,000 ids took 10 s on the embedded FerretDB, in batches 0.3 s.
    const keys = [...chains.keys()].map(idKey);
    const projects: ProjectDoc[] = [];
    for (let from = 0; from < keys.length; from += BATCH) {
      projects.push(
        ...(await models.Project.find({ _id: { $in: keys.slice(from, from + BATCH) } }).lean<ProjectDoc[]>()),
      );
    }
    const planned: { revision: ProjectRevisionDoc; state: ProjectState; key: number }[] = [];
    for (const project of projects) {
      const chain = chains.get(project.project_id)!.sort((a, b) => a.revision - b.revision);
      let state = initialState(project, chain);
      let key = 0;
      for (const revision of chain) {
        if (revision.revision > 1) {
          state = { ...state, ...revision.set, revision: revision.revision, updated_at: revision.at };
        }
        // Times made non-decreasing along the chain, so sorting by them keeps each project's order.
        key = Math.max(key, new Date(revision.at).getTime());
        planned.push({ revision, state, key });
      }
    }
    planned.sort(
      (a, b) =>
        a.key - b.key || a.revision.project_id - b.revision.project_id || a.revision.revision - b.revision.revision,
    );

    // In batches: one counter step and one insert each; revisions copied already keep their positions.
    let done = 0;
    for (let from = 0; from < planned.length; from += BATCH) {
      const batch = planned.slice(from, from + BATCH);
      copied += await log.appendAll(batch.map(changeOf));
      done += batch.length;
      if (Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
        reportedAt = Date.now();
        progress(`… ${done.toLocaleString("en")} of ${revisions(planned.length)} copied`);
      }
    }
    progress(
      `Copied ${revisions(copied)} into the change log in ${((Date.now() - started) / 1000).toFixed(1)} s` +
        (copied < planned.length ? `; ${(planned.length - copied).toLocaleString("en")} were there already` : "") +
        (planned.length < legacy.length
          ? `; left out ${revisions(legacy.length - planned.length)} of projects no longer stored`
          : ""),
    );
  }
  await markers.insertOne({ _id: MARKER, at: new Date() }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err;
  });
  return copied;
}

/** A legacy revision as a change of the log, with the project's state after it. */
function changeOf({ revision, state }: { revision: ProjectRevisionDoc; state: ProjectState }) {
  const { _id, project_id, revision: n, operation, actor_id, actor_role, at, set, changes } = revision;
  return { _id, project_id, revision: n, operation, actor_id, actor_role, at, set, changes, project: state };
}

const revisions = (n: number) => `${n.toLocaleString("en")} revision${n === 1 ? "" : "s"}`;

/**
 * The project as created (revision 1): the stored project with the changes of its later revisions undone, newest
 * first, each field set back to the value its change came from (typed as PROJECT_FIELDS declares it).
 */
function initialState(project: ProjectDoc, chain: ProjectRevisionDoc[]): ProjectState {
  const { _id: _key, name_key: _nameKey, change_seq: _seq, ...stored } = withStoredDefaults(PROJECT_FIELDS, project);
  const state: Record<string, unknown> = { ...stored, revision: 1, updated_at: project.created_at };
  for (const revision of [...chain].sort((a, b) => b.revision - a.revision)) {
    if (revision.revision === 1) continue;
    for (const change of revision.changes) state[change.field] = typedAs(change.field, change.from);
  }
  return state as ProjectState;
}

/** A recorded value (text, or null) as the stored field's type. */
function typedAs(field: string, text: string | null): unknown {
  const declared = (PROJECT_FIELDS as Record<string, { type: unknown }>)[field]?.type;
  return text !== null && declared === Number ? Number(text) : text;
}

const UPGRADE_MARKER = "projects-at-newest-revision";

/**
 * Makes a database written by versions before changes were single conditional updates what this version expects,
 * at every start (both steps are cheap when there is nothing to do): the counter of log positions is raised to the
 * log's highest position (earlier versions took positions from a counter that was only a hint); and once (a marker in
 * `migrations` records it), every project is brought up to the log (ProjectChangeLog.catchUpProjects: a writer of an
 * earlier version that died between its two writes left its project behind its newest logged revision, which that
 * version's readers rolled forward on every read; this version reads the document as it is).
 */
export async function upgradeProjects(
  connection: Connection,
  log: ProjectChangeLog,
  progress: Progress = () => {},
): Promise<number> {
  await log.catchUpCounter();
  const markers = connection.db!.collection<{ _id: string; at: Date }>("migrations");
  if (await markers.findOne({ _id: UPGRADE_MARKER })) return 0;
  const upgraded = await log.catchUpProjects();
  if (upgraded > 0) progress(`Brought ${upgraded.toLocaleString("en")} projects up to their newest logged revision`);
  await markers.insertOne({ _id: UPGRADE_MARKER, at: new Date() }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err;
  });
  return upgraded;
}
