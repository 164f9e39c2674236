// Standard Webhooks signatures (standardwebhooks.com), made by the specification's own library: every secret of an
// endpoint signs "<webhook-id>.<webhook-timestamp>.<body>" with HMAC-SHA256, and the signatures go into one
// webhook-signature header separated by spaces (rotation: a receiver accepts the message when any one verifies).
import { Webhook } from "standardwebhooks";

/** The three Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** Signs `body` for delivery `id` at `at` with each of `secrets` (`whsec_…`). */
export function signDelivery(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(" "),
  };
}
