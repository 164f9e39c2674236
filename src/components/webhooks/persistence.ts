// Webhooks' persistence part, for src/persistence.ts and src/services.ts (loads Mongoose).
export {
  createWebhookDeliveryModel,
  createWebhookEndpointModel,
  type WebhookDeliveryModel,
  type WebhookEndpointModel,
} from "./webhook.model";
export { WebhookRepository } from "./webhook.repository";
