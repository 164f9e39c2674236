// The WEBHOOKS file: the endpoints that receive the changes of projects (docs/webhooks.md). Parsed once at start; a
// bad file stops the start with one line naming the place (`endpoints[1].secrets[0]: ...`), as the other
// configuration files do. A secret never appears in a message: only its place.
import { parseJsonText } from "../../shared/json-text";
import { parseProjectWhereJson, type ProjectWhere } from "../projects";

/** The events of the contract, in the order of their operations. */
export const WEBHOOK_EVENTS = [
  "project.created",
  "project.teacher_assigned",
  "project.status_changed",
  "project.archived",
  "project.unarchived",
  "project.deleted",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event of each operation of the change log. */
export const EVENT_OF_OPERATION: Readonly<Record<string, WebhookEvent>> = {
  createProject: "project.created",
  assignTeacher: "project.teacher_assigned",
  updateProjectStatus: "project.status_changed",
  archiveProject: "project.archived",
  unarchiveProject: "project.unarchived",
  deleteProject: "project.deleted",
};

export interface WebhookEndpoint {
  /** 1–64 of [A-Za-z0-9_-]: part of every delivery's webhook-id. */
  id: string;
  url: string;
  /** Raw HMAC keys (the base64 part after whsec_, decoded); every one signs. Never logged. */
  secrets: readonly string[];
  /** The events it receives; undefined: all. */
  events?: ReadonlySet<WebhookEvent>;
  /** The projects whose changes it receives (the project as of the change); undefined: all. */
  where?: ProjectWhere;
}

export interface WebhooksFile {
  endpoints: readonly WebhookEndpoint[];
}

export interface WebhooksFileOptions {
  /** WEBHOOKS_ALLOW_PRIVATE: http URLs are allowed only then. */
  allowPrivate: boolean;
}

const ENDPOINT_FIELDS = ["id", "url", "secret", "secrets", "events", "where", "description"];
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** A `whsec_` secret; throws without showing it. Returns it as the file wrote it (standardwebhooks takes that). */
function secret(value: unknown, place: string): string {
  if (typeof value !== "string" || !value.startsWith("whsec_")) {
    throw new Error(`${place}: expected a secret "whsec_<base64 of 24 to 64 random bytes>" (value hidden)`);
  }
  const base64 = value.slice("whsec_".length);
  const bytes = BASE64.test(base64) ? Buffer.from(base64, "base64").length : 0;
  if (bytes < 24 || bytes > 64) {
    throw new Error(
      `${place}: expected "whsec_" and the base64 of 24 to 64 random bytes (value hidden; got ${bytes === 0 ? "no valid base64" : `${bytes} bytes`}); make one with: node -e "console.log('whsec_'+require('crypto').randomBytes(32).toString('base64'))"`,
    );
  }
  return value;
}

function url(value: unknown, place: string, options: WebhooksFileOptions): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof value === "string" && value.length <= 2048 ? new URL(value) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:") || parsed.hostname === "") {
    throw new Error(`${place}: expected an absolute https URL of at most 2048 characters, got ${shown(value)}`);
  }
  if (parsed.username || parsed.password) {
    throw new Error(`${place}: a URL must not carry credentials (user:password@); the signature authenticates`);
  }
  if (parsed.protocol === "http:" && !options.allowPrivate) {
    throw new Error(
      `${place}: expected an https URL (http is allowed only with WEBHOOKS_ALLOW_PRIVATE=true), got ${shown(value)}`,
    );
  }
  return parsed.href;
}

function endpoint(value: unknown, place: string, options: WebhooksFileOptions): WebhookEndpoint {
  if (!isObject(value)) throw new Error(`${place}: expected an endpoint object, got ${shown(value)}`);
  for (const key of Object.keys(value)) {
    if (!ENDPOINT_FIELDS.includes(key) && !key.startsWith("$")) {
      throw new Error(`${place}.${key}: unknown field; an endpoint has ${ENDPOINT_FIELDS.join(", ")}`);
    }
  }
  if (typeof value.id !== "string" || !ID.test(value.id)) {
    throw new Error(`${place}.id: expected 1 to 64 letters, digits, "_" or "-", got ${shown(value.id)}`);
  }
  const id = value.id;
  const target = url(value.url, `${place}.url`, options);
  let secrets: string[];
  if (value.secret !== undefined && value.secrets !== undefined) {
    throw new Error(`${place}: give "secret" or "secrets", not both`);
  } else if (value.secret !== undefined) {
    secrets = [secret(value.secret, `${place}.secret`)];
  } else if (Array.isArray(value.secrets) && value.secrets.length >= 1 && value.secrets.length <= 10) {
    secrets = value.secrets.map((s, i) => secret(s, `${place}.secrets[${i}]`));
  } else if (value.secrets !== undefined) {
    throw new Error(`${place}.secrets: expected a list of 1 to 10 secrets`);
  } else {
    throw new Error(`${place}: "secret" (or "secrets", a list) is missing`);
  }
  let events: Set<WebhookEvent> | undefined;
  if (value.events !== undefined) {
    if (!Array.isArray(value.events) || value.events.length === 0) {
      throw new Error(`${place}.events: expected a list of events (leave it out for all), got ${shown(value.events)}`);
    }
    events = new Set();
    value.events.forEach((event: unknown, i) => {
      if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(event)) {
        throw new Error(
          `${place}.events[${i}]: unknown event ${shown(event)}; events are ${WEBHOOK_EVENTS.join(", ")}`,
        );
      }
      events!.add(event as WebhookEvent);
    });
  }
  const where = value.where === undefined ? undefined : parseProjectWhereJson(value.where, `${place}.where`);
  if (value.description !== undefined && typeof value.description !== "string") {
    throw new Error(`${place}.description: expected a text, got ${shown(value.description)}`);
  }
  return { id, url: target, secrets, events, where };
}

/** Parses the WEBHOOKS file; throws Error with one line naming the place of the first problem. */
export function parseWebhooksFile(text: string, options: WebhooksFileOptions): WebhooksFile {
  const raw = parseJsonText(text);
  if (!isObject(raw)) throw new Error(`expected an object with "endpoints" (a list), got ${shown(raw)}`);
  for (const key of Object.keys(raw)) {
    if (key !== "endpoints" && !key.startsWith("$")) {
      throw new Error(`unknown key "${key}" at the top: the file holds "endpoints" (a list of endpoints)`);
    }
  }
  if (!Array.isArray(raw.endpoints))
    throw new Error(`endpoints: expected a list of endpoints, got ${shown(raw.endpoints)}`);
  if (raw.endpoints.length > 100) throw new Error("endpoints: at most 100 endpoints");
  const seen = new Set<string>();
  const endpoints = raw.endpoints.map((value, i) => {
    const parsed = endpoint(value, `endpoints[${i}]`, options);
    if (seen.has(parsed.id)) throw new Error(`endpoints[${i}].id: "${parsed.id}" is the id of an earlier endpoint`);
    seen.add(parsed.id);
    return parsed;
  });
  return { endpoints };
}
