// The body of a delivery (contract, "Webhooks"): { type, timestamp, data: { cursor, project_id, change, project } },
// field names as in the GraphQL API: `change` as in Project.history, `project` as of the change (for a delete, as it
// was) with its global `id`. Built once per delivery and stored, so every attempt sends (and signs) the same bytes.
import type { CommittedChange } from "../projects/persistence";
import { encodeChangeCursor } from "../projects";
import type { WebhookEvent } from "./webhook.config";

/** Project's global id as GraphQL answers it (graphql/node.ts: base64url of "Project:<id>"). */
const projectGlobalId = (projectId: number): string =>
  Buffer.from(`Project:${projectId}`, "utf8").toString("base64url");

export function deliveryBody(event: WebhookEvent, committed: CommittedChange): string {
  const { project, change } = committed;
  return JSON.stringify({
    type: event,
    timestamp: change.at,
    data: {
      cursor: encodeChangeCursor(committed.seq),
      project_id: committed.project_id,
      change,
      project: { id: projectGlobalId(project.project_id), ...project },
    },
  });
}

/** The webhook-id of the delivery of the change at log position `seq` to endpoint `endpoint`. */
export const deliveryId = (endpoint: string, seq: number): string => `msg_${endpoint}_${seq}`;
