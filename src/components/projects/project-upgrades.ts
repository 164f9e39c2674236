// Upgrades of data stored by earlier versions, and of copies read while they were written, to what this version
// expects. None of it is the change log's protocol (project-changes.log.ts): it runs when a database opens (once,
// markers in `migrations` record it) and after a restore. docs/live.md and docs/operations.md describe them.
//
// - migrateProjectRevisions: copies the revisions versions before the change log stored (`project_revisions`) into
//   the log (`project_changes`). Insert-only and idempotent: each revision is appended under its own `_id`
//   ("<project>:<n>"), so a duplicate means it was already copied (by an earlier, interrupted start or by another
//   instance starting at the same time) and is skipped. Instances of the older version must be stopped before this
//   version starts: a revision they write after the copy would not reach the log. Each copied change gets the
//   project's state after it (the log's snapshot): the project as created (its stored state with the later
//   revisions' changes undone), then each revision's new values applied in order. Positions follow the revisions'
//   times, and a project's revisions keep their order (a later revision never gets a lower position).
// - upgradeProjects / catchUpProjects: the counter of positions raised to the log's highest, and every project brought
//   up to the log where it can be behind it (a writer of a version before transactions that died between its two
//   writes; a backup read from a running MongoDB, which reads the projects before the log).
import type { ClientSession, Connection } from "mongoose";
import type { Progress } from "../../db/embedded-server";
import { timedCommand } from "../../db/command-timing";
import { isDuplicateKeyError, type IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { missingNumbers, numberFieldOf } from "../../db/missing-numbers";
import { withStoredDefaults } from "../../db/stored-fields";
import type { Transactions } from "../../db/transactions";
import { foldedName, nameKey } from "../../shared/validation";
import { SEQUENCE, type ProjectChangeLog } from "./project-changes.log";
import type { ProjectChangeDoc, ProjectChangeModel, ProjectState } from "./project-changes.model";
import { PROJECT_FIELDS } from "./project.fields";
import type { ProjectDoc, ProjectModel, ProjectRevisionDoc, ProjectRevisionModel } from "./project.model";
import { revisionKey } from "./project.records";

/** A database as the upgrades need it (src/persistence.ts's Database is one). */
export interface UpgradeTarget {
  connection: Connection;
  models: { Project: ProjectModel; ProjectChange: ProjectChangeModel; ProjectRevision: ProjectRevisionModel };
  ids: IdAllocator;
  transactions: Transactions;
}

const REVISIONS_MARKER = "project_revisions-to-project_changes";
/** The marker of markNotArchived. */
const ARCHIVED_MARKER = "projects-archived-flag";
const UPGRADE_MARKER = "projects-at-newest-revision";
/** Revisions copied with one insert; projects read, and revisions looked up, in one query. */
const BATCH = 500;
/** How often a long copy reports how far it is. */
const PROGRESS_EVERY_MS = 5000;

/** Runs `work` unless `marker` is in `migrations`, then records it (another instance may have recorded it too). */
async function once<T>(db: UpgradeTarget, marker: string, none: T, work: () => Promise<T>): Promise<T> {
  const markers = db.connection.db!.collection<{ _id: string; at: Date }>("migrations");
  if (await markers.findOne({ _id: marker })) return none;
  const result = await work();
  await markers.insertOne({ _id: marker, at: new Date() }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err;
  });
  return result;
}

/**
 * Returns how many revisions it copied (0 when the marker says it is done). A copy reports its start, its progress
 * every few seconds and its end through `progress` (the service logs them): it runs before the service listens.
 */
export function migrateProjectRevisions(db: UpgradeTarget, progress: Progress = () => {}): Promise<number> {
  return once(db, REVISIONS_MARKER, 0, async () => {
    const { Project, ProjectRevision } = db.models;
    // A database that never held revisions has no such collection (the service no longer creates it): nothing to read.
    const exists = await db.connection
      .db!.listCollections({ name: ProjectRevision.collection.collectionName }, { nameOnly: true })
      .hasNext();
    const legacy = exists ? await ProjectRevision.find({}).lean<ProjectRevisionDoc[]>() : [];
    if (legacy.length === 0) return 0;
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
      projects.push(...(await Project.find({ _id: { $in: keys.slice(from, from + BATCH) } }).lean<ProjectDoc[]>()));
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
    let copied = 0;
    let done = 0;
    for (let from = 0; from < planned.length; from += BATCH) {
      const batch = planned.slice(from, from + BATCH);
      copied += await appendAll(db, batch.map(changeOf));
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
    return copied;
  });
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
  const {
    _id: _key,
    name_key: _nameKey,
    name_folded: _folded,
    change_seq: _seq,
    archived: _archived,
    ...stored
  } = withStoredDefaults(PROJECT_FIELDS, project);
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

/**
 * Commits changes at consecutive new positions, in the order given, in one transaction: one counter step and one
 * insert (the revision migration's batches). A change whose revision is in the log already (copied by an
 * interrupted earlier start, or by another instance) is left out. Returns how many were committed.
 */
export async function appendAll(db: UpgradeTarget, changes: Omit<ProjectChangeDoc, "seq">[]): Promise<number> {
  const { ProjectChange } = db.models;
  for (;;) {
    const present = await ProjectChange.find({ _id: { $in: changes.map((change) => change._id) } }, { _id: 1 }).lean<
      { _id: string }[]
    >();
    const copied = new Set(present.map((doc) => doc._id));
    const missing = changes.filter((change) => !copied.has(change._id));
    if (missing.length === 0) return 0;
    try {
      await db.transactions.run(async (session: ClientSession) => {
        const first = await db.ids.reserve(SEQUENCE, missing.length, session);
        const docs = missing.map((change, i) => ({ ...change, seq: first + i }));
        await timedCommand(ProjectChange.db.getClient(), "insert", () =>
          ProjectChange.collection.insertMany(docs as never[], { session }),
        );
      });
      return missing.length;
    } catch (err) {
      // Another instance committed some of them meanwhile (nothing of this transaction stayed): look again.
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
}

/**
 * At every start (cheap when there is nothing to do): the counter of log positions is raised to the log's highest
 * position (versions before atomic writes took positions from a counter that was only a hint); and once, every
 * project is brought up to the log (catchUpProjects: a writer of an earlier version that died between its two writes
 * left its project behind its newest logged revision, which that version's readers rolled forward on every read;
 * this version reads the document as it is).
 */
export async function upgradeProjects(
  db: UpgradeTarget,
  log: ProjectChangeLog,
  progress: Progress = () => {},
): Promise<number> {
  const last = await log.lastSeq();
  if (last > 0) await db.ids.atLeast(SEQUENCE, last);
  const upgraded = await once(db, UPGRADE_MARKER, 0, async () => {
    const upgraded = await catchUpProjects(db, log);
    if (upgraded > 0) progress(`Brought ${upgraded.toLocaleString("en")} projects up to their newest logged revision`);
    return upgraded;
  });
  await markNotArchived(db, progress);
  return upgraded;
}

/**
 * Once: every project stored before archiving existed gets `archived: false`, the equality every list filters on
 * (project.fields.ts); projects stored since have it from the start. Pages by project_id's index, as
 * db/derived-fields.ts does (a filter on the field's absence would read the whole collection on the embedded FerretDB).
 */
async function markNotArchived(db: UpgradeTarget, progress: Progress): Promise<void> {
  const { Project } = db.models;
  await once(db, ARCHIVED_MARKER, undefined, async () => {
    let marked = 0;
    for (let last = 0; ;) {
      const page = await Project.collection
        .find({ project_id: { $gt: last } } as never, { projection: { _id: 0, project_id: 1, archived: 1 } })
        .sort({ project_id: 1 })
        .limit(BATCH)
        .toArray();
      if (page.length === 0) break;
      last = page[page.length - 1].project_id as number;
      const unmarked = page.filter((doc) => typeof doc.archived !== "boolean").map((doc) => doc.project_id as number);
      if (unmarked.length === 0) continue;
      await timedCommand(Project.db.getClient(), "update", () =>
        Project.collection.updateMany({ _id: { $in: unmarked.map(idKey) } } as never, { $set: { archived: false } }),
      );
      marked += unmarked.length;
    }
    if (marked > 0) progress(`Marked ${marked.toLocaleString("en")} projects stored before archiving as not archived`);
  });
}

/**
 * Brings the projects up to the log, where a project can be behind it: on a copy read while it was being written
 * (db:backup through MONGODB_URI reads the projects before the log: a change made meanwhile can be in the log and
 * not in its project, and a project created meanwhile only in the log), and on a database written by a version
 * whose writers could die between their two writes. A project whose next revision is in the log gets the state its
 * newest entry holds (entries hold the whole project); one stored without a revision (before revisions existed) gets
 * revision 1; an id the counter handed out that no project holds, whose creation is in the log, is written from its
 * newest entry. Reads the projects in pages by project_id with one `$in` of their next revisions each, and finds the
 * absent ids by counting. Returns how many projects it brought up to the log.
 */
export async function catchUpProjects(db: UpgradeTarget, log: ProjectChangeLog): Promise<number> {
  const { Project, ProjectChange } = db.models;
  let written = 0;
  const writeFromLog = async (projectId: number, from: number) => {
    await writeProjectFromLog(Project, log, projectId, from);
    written++;
  };
  for (let last = 0; ;) {
    const page = await Project.find({ project_id: { $gt: last } }, { project_id: 1, revision: 1 })
      .sort({ project_id: 1 })
      .limit(BATCH)
      .lean<{ project_id: number; revision?: number | null }[]>();
    if (page.length === 0) break;
    last = page[page.length - 1].project_id;
    for (const { project_id } of page.filter((p) => p.revision == null)) {
      // By `_id`, one by one (rare): a filter on the field's absence would read every project on the embedded FerretDB.
      await Project.updateOne({ _id: idKey(project_id) }, { $set: { revision: 1 } }, { timestamps: false });
    }
    const ahead = await ProjectChange.find(
      { _id: { $in: page.map((p) => revisionKey(p.project_id, (p.revision ?? 1) + 1)) } },
      { project_id: 1, revision: 1 },
    ).lean<{ project_id: number; revision: number }[]>();
    for (const { project_id, revision } of ahead) await writeFromLog(project_id, revision);
  }
  const absent = await missingNumbers(numberFieldOf(Project, "project_id"), 0, await db.ids.current("projects"));
  for (let i = 0; i < absent.length; i += BATCH) {
    const ids = absent.slice(i, i + BATCH);
    const created = await ProjectChange.find(
      { _id: { $in: ids.map((id) => revisionKey(id, 1)) } },
      { project_id: 1 },
    ).lean<{ project_id: number }[]>();
    for (const { project_id } of created) await writeFromLog(project_id, 1);
  }
  return written;
}

/** Writes project `projectId` as its newest entry in the log holds it (revision `from` or later is there). */
async function writeProjectFromLog(
  Project: ProjectModel,
  log: ProjectChangeLog,
  projectId: number,
  from: number,
): Promise<void> {
  let newest: ProjectChangeDoc | undefined;
  for (let first = from; ; first += BATCH) {
    const found = await log.revisions(projectId, first, first + BATCH - 1);
    const present = found.filter((doc): doc is ProjectChangeDoc => doc !== null);
    if (present.length > 0) newest = present[present.length - 1];
    if (found[found.length - 1] === null) break;
  }
  if (!newest) return;
  const state = newest.project;
  // As the service stores a project (change_seq: its schema's default, no longer written otherwise).
  const doc = {
    _id: idKey(projectId),
    ...state,
    name_key: nameKey(state.project_name),
    name_folded: foldedName(state.project_name),
    change_seq: null,
    archived: state.archived_at != null,
  };
  await timedCommand(Project.db.getClient(), "update", () =>
    Project.collection.replaceOne({ _id: idKey(projectId) } as never, doc as never, { upsert: true }),
  );
}
