// The GraphQL types of webhook deliveries (admin only: webhookDeliveries, redeliverWebhook).
import { Field, ID, Int, ObjectType, registerEnumType } from "type-graphql";
import { ConnectionType } from "../../graphql/connection.types";
import { PayloadType } from "../../graphql/payload.types";
import { DateTime } from "../../graphql/scalars";
import type { DeliveryStatus } from "./webhook.model";
import type { WebhookDeliveryRecord } from "./webhook.service";

export const WebhookDeliveryStatus = { PENDING: "PENDING", DELIVERED: "DELIVERED", FAILED: "FAILED" } as const;

registerEnumType(WebhookDeliveryStatus, {
  name: "WebhookDeliveryStatus",
  description: "Where a webhook delivery stands",
  valuesConfig: {
    PENDING: { description: "Not delivered yet: due at next_attempt_at, or after its project's earlier deliveries" },
    DELIVERED: { description: "The endpoint answered 2xx within 10 s" },
    FAILED: {
      description:
        "Every attempt of the schedule failed, the endpoint answered 410 Gone, or its address is not allowed",
    },
  },
});

@ObjectType({ simpleResolvers: true, description: "One change of a project to be sent, or sent, to one endpoint" })
export class WebhookDelivery implements WebhookDeliveryRecord {
  @Field(() => ID, { description: "The delivery's webhook-id header, the same on every attempt (msg_<endpoint>_<n>)" })
  id!: string;

  @Field({ description: "The endpoint's id in WEBHOOKS" })
  endpoint!: string;

  @Field({ description: "The event (project.created, project.status_changed, …)" })
  event!: string;

  @Field(() => Int, { description: "The project that changed" })
  project_id!: number;

  @Field(() => Int, { description: "The project's revision this change made" })
  revision!: number;

  @Field(() => WebhookDeliveryStatus, { description: "Pending, delivered or failed" })
  status!: DeliveryStatus;

  @Field(() => Int, { description: "Attempts made so far, redeliveries included" })
  attempts!: number;

  @Field(() => DateTime, { description: "When the delivery was stored (read from the change log)" })
  created_at!: string;

  @Field(() => DateTime, { nullable: true, description: "When the last attempt started; null before the first" })
  last_attempt_at!: string | null;

  @Field(() => Int, { nullable: true, description: "The last attempt's HTTP status; null when it got no answer" })
  last_http_status!: number | null;

  @Field(() => String, { nullable: true, description: "At most 1 KB of the last answer's body" })
  last_response!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Why the last attempt got no answer (time limit, connection, an address not allowed)",
  })
  last_error!: string | null;

  @Field(() => DateTime, {
    nullable: true,
    description: "When it is attempted next; null when it is finished or waits for its project's earlier deliveries",
  })
  next_attempt_at!: string | null;
}

export const WebhookDeliveryConnection = ConnectionType(WebhookDelivery, "change log position, newest first");
export const WebhookDeliveryPayload = PayloadType("WebhookDeliveryPayload", WebhookDelivery);
