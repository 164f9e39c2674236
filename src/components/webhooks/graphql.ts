// Webhooks' GraphQL part, for src/graphql (loads type-graphql: reflect-metadata first).
export { WebhookResolver } from "./webhook.resolver";
