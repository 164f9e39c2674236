// Webhooks: the domain other code may use (the WEBHOOKS file's format, the admin service, the dispatcher). No
// Mongoose and no GraphQL: those are ./persistence.ts and ./graphql.ts.
export { parseWebhooksFile, WEBHOOK_EVENTS, type WebhooksFile, type WebhookEndpoint } from "./webhook.config";
export { WebhookService, type WebhookDeliveryRecord } from "./webhook.service";
export { WebhookDispatcher, type DeliveryOutcome, type WebhookDispatcherOptions } from "./webhook.dispatcher";
