// Apollo Server over the type-graphql schema: query limits (graphql-armor, query-cost.ts), error formatting, draining.
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from "@apollo/server/plugin/disabled";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import { formatGraphqlError } from "../answers/graphql-error";
import type { Logger } from "../logger";
import type { Context } from "./context";
import { explorerLandingPage, type ExplorerConfig } from "./explorer";
import { queryCostPlugin } from "./query-cost";
import { getSchema } from "./schema";

/** Tokens one GraphQL document may hold; the largest query in the README has about 100. */
const MAX_TOKENS = 2000;

export function createApolloServer(options: {
  logger: Logger;
  production: boolean;
  plugins?: ApolloServerPlugin<Context>[];
  explorer: ExplorerConfig["explorer"];
}) {
  const armor = new ApolloArmor({
    maxDepth: { n: 8 },
    // Armor's cost limit ignores list sizes; query-cost.ts counts them (limit × item cost) and replaces it.
    costLimit: { enabled: false },
    maxAliases: { n: 15 },
    // Armor's token limit turns every syntax error into a 500 on Apollo (graphql-armor#751); graphql-js's own
    // parser limit (parseOptions below) answers the same attack with an ordinary 400 parse error.
    maxTokens: { enabled: false },
    // Suggestions help people exploring in GraphiQL; hide the schema's shape from guessers in production.
    blockFieldSuggestion: { enabled: options.production },
  });
  const protection = armor.protect();
  return new ApolloServer<Context>({
    schema: getSchema(),
    ...protection,
    plugins: [
      ...(protection.plugins as ApolloServerPlugin<Context>[]),
      queryCostPlugin<Context>(),
      // Nothing here reads cache hints or reports to Apollo's cloud: the cache-control plugin alone cost ~37% of
      // executing a page of 100 projects (it wraps every field resolver).
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ...(options.plugins ?? []),
      // Apollo adds its default landing page (Sandbox) only when no plugin defines one: this is the configured one.
      explorerLandingPage(options),
    ],
    parseOptions: { maxTokens: MAX_TOKENS },
    includeStacktraceInErrorResponses: false,
    // src/index.ts owns the signals: it closes Fastify (which stops Apollo), then the database.
    stopOnTerminationSignals: false,
    csrfPrevention: {
      // Our auth headers are not CORS-safelisted, so a browser must preflight them: they protect like Apollo's own.
      requestHeaders: ["x-apollo-operation-name", "apollo-require-preflight", "x-user-role", "authorization"],
    },
    formatError: (formatted, error) => formatGraphqlError(formatted, error, options.logger),
  });
}
