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
import { z } from "zod";
import { badRequest, ErrorCode, FieldErrorReason, type FieldError } from "../../shared/errors";
import { LIMITS, textProblem } from "../../shared/validation";
import { parseJsonText } from "../../shared/json-text";

export interface StatusWorkflow {
  /** Statuses in the order the file lists them. */
  statuses: string[];
  initial: Set<string>;
  transitions: Map<string, Set<string>>;
}

/** A status name as the file must write it: exactly what a project_status input would be after trimming. */
const statusName = z.string().check((ctx) => {
  if (ctx.value.trim() !== ctx.value || textProblem(ctx.value, LIMITS.project_status, "identifier")) {
    ctx.issues.push({
      code: "custom",
      message: `status "${ctx.value}" must be 1-${LIMITS.project_status} characters without surrounding spaces or control characters`,
      input: ctx.value,
    });
  }
});

const TRANSITIONS_MESSAGE = '"transitions" must be an object mapping each status to the statuses it may change to';

/** The file's structure; "$schema", "$comment" and "description" may annotate it, other keys are refused. */
const WorkflowFile = z
  .looseObject(
    {
      transitions: z.record(statusName, z.array(z.string()), { error: TRANSITIONS_MESSAGE }),
      initial: z.array(z.string()).min(1).optional(),
      description: z.unknown().optional(),
    },
    { error: 'expected an object with "transitions" (and optionally "initial")' },
  )
  .check((ctx) => {
    const unknownKey = Object.keys(ctx.value).find(
      (k) => !["transitions", "initial", "description"].includes(k) && !k.startsWith("$"),
    );
    if (unknownKey) ctx.issues.push({ code: "custom", message: `unknown key "${unknownKey}"`, input: ctx.value });
  });

/** One line for the first structural problem (the process prints it and stops). */
function reason(issue: z.core.$ZodIssue): string {
  const [top, key] = issue.path.map(String);
  if (top === "transitions" && issue.code === "invalid_type" && key !== undefined) {
    return `transitions of "${key}" must be an array of status names`;
  }
  if (top === "transitions" && issue.code === "invalid_key") return issue.issues[0]?.message ?? TRANSITIONS_MESSAGE;
  if (top === "initial") return '"initial" must be a non-empty array of status names';
  return issue.message;
}

/** Parses and checks a workflow file's text; throws Error with a one-line reason. */
export function parseStatusWorkflow(text: string): StatusWorkflow {
  const raw = parseJsonText(text);
  const parsed = WorkflowFile.safeParse(raw);
  if (!parsed.success) throw new Error(reason(parsed.error.issues[0]));
  const { transitions, initial } = parsed.data;
  const statuses = Object.keys(transitions);
  if (statuses.length === 0) throw new Error('"transitions" lists no status');
  const known = new Set(statuses);
  const map = new Map<string, Set<string>>();
  for (const [from, targets] of Object.entries(transitions)) {
    for (const to of targets) {
      if (!known.has(to)) throw new Error(`"${from}" may change to "${to}", which is not a key of "transitions"`);
    }
    map.set(from, new Set(targets));
  }
  for (const s of initial ?? []) {
    if (!known.has(s)) throw new Error(`initial status "${s}" is not a key of "transitions"`);
  }
  return { statuses, initial: new Set(initial ?? statuses), transitions: map };
}

/** The problem of the status a new project is created with, if any; listed with the input's other problems. */
export function initialStatusRule(workflow: StatusWorkflow | undefined) {
  return (input: { project_status?: unknown }): FieldError | null => {
    if (!workflow || typeof input.project_status !== "string") return null;
    const status = input.project_status.trim();
    const refuse = (reason: FieldErrorReason, message: string): FieldError => ({
      field: "project_status",
      message,
      code: ErrorCode.BAD_REQUEST,
      reason,
    });
    if (!workflow.transitions.has(status)) {
      return refuse(
        FieldErrorReason.UNKNOWN_STATUS,
        `project_status "${status}" is not one of: ${workflow.statuses.join(", ")}`,
      );
    }
    if (!workflow.initial.has(status)) {
      // Creation is the transition from no status: the workflow does not allow starting with this one.
      return refuse(
        FieldErrorReason.TRANSITION_NOT_ALLOWED,
        `project_status "${status}" cannot start a project; use one of: ${[...workflow.initial].join(", ")}`,
      );
    }
    return null;
  };
}

/**
 * The condition on the stored status under which a change to `to` applies and changes something: what
 * assertTransition allows, `to` itself left out (setting it again records nothing). Matches nothing for a status
 * the workflow does not list (assertTransition then says why).
 */
export function statusesLeadingTo(workflow: StatusWorkflow | undefined, to: string): { $nin: string[] } | { $in: [] } {
  if (!workflow) return { $nin: [to] };
  if (!workflow.transitions.has(to)) return { $in: [] };
  const refused = [...workflow.transitions].filter(([from, next]) => from !== to && !next.has(to)).map(([f]) => f);
  return { $nin: [to, ...refused] };
}

/** Checks a status change; setting the current status again is always allowed. */
export function assertTransition(workflow: StatusWorkflow | undefined, from: string, to: string): void {
  if (!workflow || from === to) return;
  if (!workflow.transitions.has(to)) {
    throw badRequest(
      `project_status "${to}" is not one of: ${workflow.statuses.join(", ")}`,
      "project_status",
      FieldErrorReason.UNKNOWN_STATUS,
    );
  }
  const allowed = workflow.transitions.get(from);
  // A stored status that the workflow no longer lists may move to any listed status.
  if (allowed && !allowed.has(to)) {
    const next = [...allowed];
    throw badRequest(
      `project_status cannot change from "${from}" to "${to}"; allowed: ${next.length ? next.join(", ") : "none (final status)"}`,
      "project_status",
      FieldErrorReason.TRANSITION_NOT_ALLOWED,
    );
  }
}
