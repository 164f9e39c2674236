// Project status workflow: which statuses exist and which changes are allowed.
// Without PROJECT_STATUS_WORKFLOW any status string is accepted and any change is allowed.
//
// File format (JSON):
//   {
//     "initial": ["proposed"],                       // optional: statuses a new project may have (default: all)
//     "transitions": {                               // every status is a key; values are the allowed next statuses
//       "proposed": ["in_progress", "cancelled"],
//       "in_progress": ["completed", "cancelled"],
//       "completed": [],
//       "cancelled": []
//     }
//   }
import { badRequest } from "../../shared/errors";

export interface StatusWorkflow {
  /** Statuses in the order the file lists them. */
  statuses: string[];
  initial: Set<string>;
  transitions: Map<string, Set<string>>;
}

const STATUS_MAX = 64;

/** Parses and checks a workflow file's text; throws Error with a one-line reason. */
export function parseStatusWorkflow(text: string): StatusWorkflow {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON (${(err as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error('expected an object with "transitions" (and optionally "initial")');
  }
  const { transitions, initial, ...rest } = raw as Record<string, unknown>;
  const unknownKeys = Object.keys(rest).filter((k) => !k.startsWith("$") && k !== "description");
  if (unknownKeys.length > 0) throw new Error(`unknown key "${unknownKeys[0]}"`);
  if (typeof transitions !== "object" || transitions === null || Array.isArray(transitions)) {
    throw new Error('"transitions" must be an object mapping each status to the statuses it may change to');
  }
  const statuses = Object.keys(transitions);
  if (statuses.length === 0) throw new Error('"transitions" lists no status');
  for (const status of statuses) {
    if (status.trim() !== status || status.length < 1 || status.length > STATUS_MAX) {
      throw new Error(`status "${status}" must be 1-${STATUS_MAX} characters without surrounding spaces`);
    }
  }
  const known = new Set(statuses);
  const map = new Map<string, Set<string>>();
  for (const [from, targets] of Object.entries(transitions as Record<string, unknown>)) {
    if (!Array.isArray(targets) || targets.some((t) => typeof t !== "string")) {
      throw new Error(`transitions of "${from}" must be an array of status names`);
    }
    for (const to of targets as string[]) {
      if (!known.has(to)) throw new Error(`"${from}" may change to "${to}", which is not a key of "transitions"`);
    }
    map.set(from, new Set(targets as string[]));
  }
  let initialSet = new Set(statuses);
  if (initial !== undefined) {
    if (!Array.isArray(initial) || initial.length === 0 || initial.some((s) => typeof s !== "string")) {
      throw new Error('"initial" must be a non-empty array of status names');
    }
    for (const s of initial as string[]) {
      if (!known.has(s)) throw new Error(`initial status "${s}" is not a key of "transitions"`);
    }
    initialSet = new Set(initial as string[]);
  }
  return { statuses, initial: initialSet, transitions: map };
}

/** Checks the status a new project is created with. */
export function assertInitialStatus(workflow: StatusWorkflow | undefined, status: string): void {
  if (!workflow) return;
  if (!workflow.transitions.has(status)) {
    throw badRequest(`project_status "${status}" is not one of: ${workflow.statuses.join(", ")}`);
  }
  if (!workflow.initial.has(status)) {
    throw badRequest(`project_status "${status}" cannot start a project; use one of: ${[...workflow.initial].join(", ")}`);
  }
}

/** Checks a status change; setting the current status again is always allowed. */
export function assertTransition(workflow: StatusWorkflow | undefined, from: string, to: string): void {
  if (!workflow || from === to) return;
  if (!workflow.transitions.has(to)) {
    throw badRequest(`project_status "${to}" is not one of: ${workflow.statuses.join(", ")}`);
  }
  const allowed = workflow.transitions.get(from);
  // A stored status that the workflow no longer lists may move to any listed status.
  if (allowed && !allowed.has(to)) {
    const next = [...allowed];
    throw badRequest(
      `project_status cannot change from "${from}" to "${to}"; allowed: ${next.length ? next.join(", ") : "none (final status)"}`,
    );
  }
}
