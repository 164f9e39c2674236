// Apollo Server over the type-graphql schema: document limits and persisted documents (document-policy.ts), error
// formatting, draining. Automatic persisted queries (Apollo's, on unless only trusted documents run) keep their
// documents in Apollo's in-memory cache, per instance, or with REDIS_URL in the cache src/redis gives, shared by every
// instance: a client whose hash the cache does not know gets PERSISTED_QUERY_NOT_FOUND and sends the query again, as
// the protocol says.
import { compiledExecutionGateway } from "./compiled-execution";
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import type { KeyValueCache } from "@apollo/utils.keyvaluecache";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from "@apollo/server/plugin/disabled";
import type { GraphQLSchema } from "graphql";
import { formatGraphqlError, shedRequestStatusPlugin } from "../answers/graphql-error";
import type { Logger } from "../logger";
import type { Context } from "./context";
import { explorerLandingPage, type ExplorerConfig } from "./explorer";
import type { DocumentPolicy } from "./document-policy";

export function createApolloServer(options: {
  /** The schema served (schema.ts servedSchema: the subgraph with FEDERATION=true). */
  schema: GraphQLSchema;
  logger: Logger;
  production: boolean;
  plugins?: ApolloServerPlugin<Context>[];
  explorer: ExplorerConfig["explorer"];
  /** Which documents may run: the same policy the WebSocket path applies. */
  policy: DocumentPolicy;
  /** Where automatic persisted queries are kept (REDIS_URL's shared cache); default: Apollo's in-memory cache. */
  documentCache?: KeyValueCache<string>;
}) {
  const { policy } = options;
  return new ApolloServer<Context>({
    gateway: compiledExecutionGateway(options.schema),
    validationRules: policy.validationRules,
    allowBatchedHttpRequests: false,
    plugins: [
      // Only authenticated callers register automatic persisted queries.
      ...policy.apolloPlugins<Context>((context) => context.caller.authenticated),
      // Nothing here reads cache hints or reports to Apollo's cloud: the cache-control plugin alone cost ~37% of
      // executing a page of 100 projects (it wraps every field resolver).
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      // A shed change answers HTTP 503 with Retry-After (answers/graphql-error.ts).
      shedRequestStatusPlugin<Context>(),
      ...(options.plugins ?? []),
      // Apollo adds its default landing page (Sandbox) only when no plugin defines one: this is the configured one.
      explorerLandingPage(options),
    ],
    parseOptions: policy.parseOptions,
    // false: a request with extensions.persistedQuery that names no trusted document is refused before Apollo sees
    // it; undefined: Apollo's default (on, with its bounded in-memory cache); with REDIS_URL, the shared cache.
    persistedQueries: !policy.automaticPersistedQueries
      ? false
      : options.documentCache
        ? { cache: options.documentCache }
        : undefined,
    includeStacktraceInErrorResponses: false,
    // src/main.ts owns the signals: it closes Fastify (which stops Apollo), then the database.
    stopOnTerminationSignals: false,
    csrfPrevention: {
      // Our auth headers are not CORS-safelisted, so a browser must preflight them: they protect like Apollo's own.
      requestHeaders: ["x-apollo-operation-name", "apollo-require-preflight", "x-user-role", "authorization"],
    },
    formatError: (formatted, error) => formatGraphqlError(formatted, error, options.logger),
  });
}
