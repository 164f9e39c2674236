// GraphQL entry points of the live updates: Subscription.projectChanged and Subscription.projectChanges (contract,
// "Live updates"). The subscribe functions decode and call the feed (project-changes.feed.ts); the per-event
// resolvers check that the caller may still read (a token that expired closes the connection) and give each event
// fresh loaders, so relations of an event (teacher) are read as of its delivery. Subscriptions run over WebSocket
// only (src/live/graphql-ws.ts sets ctx.live).
import { Args, ArgsType, Authorized, Ctx, Field, Int, ObjectType, Resolver, Root, Subscription } from "type-graphql";
import type { SubscribeResolverData } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { createLoaders, type Context, type LiveOperation } from "../../graphql/context";
import { badRequest, FieldErrorReason } from "../../shared/errors";
import type { ProjectChangeEvent as ProjectChangeEventRecord } from "./project-changes.feed";
import { ProjectFilterInput } from "./project.inputs";
import { Project, ProjectChange } from "./project.type";

@ObjectType({ simpleResolvers: true, description: "One committed change of a project, as live updates deliver it" })
export class ProjectChangeEvent {
  @Field({ description: "Opaque; subscribe again with after: <this cursor> to resume after this event" })
  cursor!: string;

  @Field(() => Int, { description: "The project that changed" })
  project_id!: number;

  @Field(() => ProjectChange, { description: "The revision, as in Project.history" })
  change!: ProjectChange;

  @Field(() => Project, { description: "The project as of that revision" })
  project!: Project;
}

@ArgsType()
export class ProjectChangedArgs {
  @Field(() => Int, { description: "The project's project_id" })
  projectId!: number;

  @Field(() => Int, {
    nullable: true,
    description: "Replay the project's revisions after this one first (0: from its creation); omitted: from now",
  })
  after_revision?: number | null;
}

@ArgsType()
export class ProjectChangesArgs {
  @Field(() => ProjectFilterInput, {
    nullable: true,
    description: "Every field given narrows the stream: a change is sent when the project matches before or after it",
  })
  filter?: ProjectFilterInput | null;

  @Field(() => String, {
    nullable: true,
    description: "The cursor of the last event received: replay every change after it first; omitted: from now",
  })
  after?: string | null;
}

type SubscribeData<Args> = SubscribeResolverData<unknown, Args, Context>;

function liveOf(context: Context): LiveOperation {
  if (!context.live) {
    throw badRequest(
      "subscriptions run over WebSocket (graphql-transport-ws) at /graphql, not over HTTP",
      null,
      FieldErrorReason.NOT_SUPPORTED,
    );
  }
  return context.live;
}

/** Per event: the caller may still read (else the connection closes), and relations are read afresh. */
function deliver(event: ProjectChangeEventRecord, ctx: Context): ProjectChangeEventRecord {
  liveOf(ctx).authorizeEvent();
  ctx.loaders = createLoaders(ctx.services, ctx.access);
  return event;
}

@Resolver(() => ProjectChangeEvent)
export class ProjectChangesResolver {
  @Authorized(rolesFor("projectChanged"))
  @Subscription(() => ProjectChangeEvent, {
    description:
      "Changes of one project committed after after_revision (replayed in order), then live; without it, from now",
    subscribe: ({ args, context }: SubscribeData<ProjectChangedArgs>) =>
      context.services.projectChanges.subscribeProject(args, liveOf(context), context.access),
  })
  projectChanged(
    @Root() event: ProjectChangeEventRecord,
    @Args() _args: ProjectChangedArgs,
    @Ctx() ctx: Context,
  ): ProjectChangeEventRecord {
    return deliver(event, ctx);
  }

  @Authorized(rolesFor("projectChanges"))
  @Subscription(() => ProjectChangeEvent, {
    description:
      "Changes of every project matching filter, committed after the cursor after (replayed in order), then live; without after, from now. Every subscriber gets them in the same order",
    subscribe: ({ args, context }: SubscribeData<ProjectChangesArgs>) =>
      context.services.projectChanges.subscribeAll(args, liveOf(context), context.access),
  })
  projectChanges(
    @Root() event: ProjectChangeEventRecord,
    @Args() _args: ProjectChangesArgs,
    @Ctx() ctx: Context,
  ): ProjectChangeEventRecord {
    return deliver(event, ctx);
  }
}
