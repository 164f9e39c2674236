// Webhooks' stored state (Mongoose), beside the change log they are derived from (docs/webhooks.md):
// - webhook_endpoints: one document per endpoint id: how far it has read the change log (`cursor`, a log position),
//   its lease (which instance works for it, until when), and whether a 410 turned it off (for which URL).
// - webhook_deliveries: one document per endpoint and selected change: its body, status, attempts and schedule.
//   Delivered and failed ones are removed WEBHOOKS_RETENTION_DAYS after they finished.
import { Schema, type Connection, type Model } from "mongoose";

export const DELIVERY_STATUSES = ["PENDING", "DELIVERED", "FAILED"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookEndpointDoc {
  /** The endpoint's id in the WEBHOOKS file. */
  _id: string;
  /** The last change log position this endpoint has passed: every selected change up to it has its delivery. */
  cursor: number;
  /** The instance working for this endpoint, while lease_until is ahead. */
  lease_owner: string | null;
  lease_until: Date;
  /** Set by a 410 Gone: the endpoint is off while the file names this same URL. */
  off_url: string | null;
  off_at: Date | null;
}

export interface WebhookDeliveryDoc {
  /** The webhook-id: msg_<endpoint>_<log position>, the same on every attempt. */
  _id: string;
  endpoint: string;
  /** The change's log position. */
  seq: number;
  project_id: number;
  revision: number;
  event: string;
  status: DeliveryStatus;
  /** Attempts made, redeliveries included. */
  attempts: number;
  /** Attempts since the delivery was (re)scheduled: where it is in the retry schedule. */
  step: number;
  created_at: Date;
  /** When it is due; null while an earlier delivery of its project to the same endpoint is pending. */
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_http_status: number | null;
  /** At most 1 KB of the last answer's body. */
  last_response: string | null;
  /** Why the last attempt failed without an answer (time limit, connection refused, a private address). */
  last_error: string | null;
  /** When it was delivered or marked failed; retention counts from here. */
  finished_at: Date | null;
  /** Set by redeliverWebhook: its end does not schedule its project's next delivery (that one was scheduled already). */
  redelivered: boolean;
  /** The request body, exactly as signed. */
  body: string;
  /** listKey(seq, endpoint): the order of webhookDeliveries over every endpoint, newest first. */
  list_key: string;
}

const endpointSchema = new Schema<WebhookEndpointDoc>(
  {
    _id: { type: String, required: true },
    cursor: { type: Number, required: true },
    lease_owner: { type: String, default: null },
    lease_until: { type: Date, required: true },
    off_url: { type: String, default: null },
    off_at: { type: Date, default: null },
  },
  { collection: "webhook_endpoints", versionKey: false, autoIndex: false, minimize: false },
);

const deliverySchema = new Schema<WebhookDeliveryDoc>(
  {
    _id: { type: String, required: true },
    endpoint: { type: String, required: true },
    seq: { type: Number, required: true },
    project_id: { type: Number, required: true },
    revision: { type: Number, required: true },
    event: { type: String, required: true },
    status: { type: String, required: true, enum: DELIVERY_STATUSES },
    attempts: { type: Number, default: 0 },
    step: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    next_attempt_at: { type: Date, default: null },
    last_attempt_at: { type: Date, default: null },
    last_http_status: { type: Number, default: null },
    last_response: { type: String, default: null },
    last_error: { type: String, default: null },
    finished_at: { type: Date, default: null },
    redelivered: { type: Boolean, default: false },
    body: { type: String, required: true },
    list_key: { type: String, required: true },
  },
  { collection: "webhook_deliveries", versionKey: false, autoIndex: false, minimize: false },
);
// What is due for an endpoint (the worker's scan), by time.
deliverySchema.index({ endpoint: 1, status: 1, next_attempt_at: 1 });
// A project's pending deliveries to an endpoint in log order (the next one to schedule).
deliverySchema.index({ endpoint: 1, project_id: 1, status: 1, seq: 1 });
// webhookDeliveries: newest first, for one endpoint or all.
deliverySchema.index({ list_key: -1 });
deliverySchema.index({ status: 1, list_key: -1 });
deliverySchema.index({ endpoint: 1, seq: -1 });
deliverySchema.index({ endpoint: 1, status: 1, seq: -1 });
// Retention: finished ones by when they finished.
deliverySchema.index({ finished_at: 1 });

export type WebhookEndpointModel = Model<WebhookEndpointDoc>;
export type WebhookDeliveryModel = Model<WebhookDeliveryDoc>;

export function createWebhookEndpointModel(connection: Connection): WebhookEndpointModel {
  return connection.model<WebhookEndpointDoc>("WebhookEndpoint", endpointSchema);
}

export function createWebhookDeliveryModel(connection: Connection): WebhookDeliveryModel {
  return connection.model<WebhookDeliveryDoc>("WebhookDelivery", deliverySchema);
}
