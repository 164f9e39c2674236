// GraphQL entry points of webhooks (admin only): decode, call one service function, return. redeliverWebhook's
// result is wrapped in WebhookDeliveryPayload by graphql/mutation-payloads.ts.
import type { GraphQLResolveInfo } from "graphql";
import { Arg, Args, ArgsType, Authorized, Ctx, Field, ID, Info, Int, Mutation, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import type { DeliveryStatus } from "./webhook.model";
import type { WebhookDeliveryRecord } from "./webhook.service";
import {
  WebhookDelivery,
  WebhookDeliveryConnection,
  WebhookDeliveryPayload,
  WebhookDeliveryStatus,
} from "./webhook.type";

@ArgsType()
class WebhookDeliveriesArgs {
  @Field(() => String, { nullable: true, description: "Only this endpoint's deliveries (its id in WEBHOOKS)" })
  endpoint?: string | null;

  @Field(() => WebhookDeliveryStatus, { nullable: true, description: "Only deliveries with this status" })
  status?: DeliveryStatus | null;

  @Field(() => Int, { nullable: true, description: "This many deliveries (0 to 100) after `after`; default 20" })
  first?: number | null;

  @Field(() => String, { nullable: true, description: "A cursor (from edges or pageInfo): the page starts after it" })
  after?: string | null;
}

@Resolver(() => WebhookDelivery)
export class WebhookResolver {
  @Authorized(rolesFor("webhookDeliveries"))
  @Query(() => WebhookDeliveryConnection, {
    complexity: connectionCost,
    description: "Webhook deliveries, newest change first (role: admin)",
  })
  webhookDeliveries(@Args() args: WebhookDeliveriesArgs, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo) {
    return ctx.services.webhooks.deliveries(args, { total: selectsField(info, "totalCount") });
  }

  @Authorized(rolesFor("redeliverWebhook"))
  @Mutation(() => WebhookDeliveryPayload, {
    description:
      "Sends a delivered or failed delivery again, at once, with the same webhook-id (role: admin); a pending one is CONFLICT",
  })
  redeliverWebhook(
    @Arg("id", () => ID, { description: "The delivery's id (its webhook-id)" }) id: string,
    @Ctx() ctx: Context,
  ): Promise<WebhookDeliveryRecord> {
    return ctx.services.webhooks.redeliver(id);
  }
}
