// Which GraphQL documents may run: the one place that decides it for every transport, so none can bypass it.
// Apollo (HTTP, graphql/apollo.ts) takes the parse options, the validation rules and the plugins below; the WebSocket
// path (src/live/graphql-ws.ts) runs prepareOperation(), which applies the same parse limit, the same rules and the
// same admitOperation(). The checks:
//
// - the token limit: graphql-js's own parser limit (a document over MAX_TOKENS is a parse error). Armor's token
//   limit is off: on Apollo it turned every syntax error into a 500 (graphql-armor#751);
// - graphql-armor's depth (8), alias (15) and directive limits, as validation rules beside GraphQL's own;
// - the operation: the one operationName names, or the document's only one; none (a name the document lacks, several
//   operations and no name) is refused in graphql-js's words, in admitOperation();
// - the cost limit (query-cost.ts: every list counts as its limit times its items' cost), in admitOperation();
// - in production, field suggestions ("Did you mean …") are hidden from error messages;
// - persisted documents: resolveDocument() finds the document a request names by id (`documentId: "sha256:<hex>"` or
//   Apollo's `extensions.persistedQuery.sha256Hash`) among the trusted documents (TRUSTED_DOCUMENTS); with
//   TRUSTED_DOCUMENTS_ONLY it refuses everything else before anything is parsed, and admitOperation() refuses again
//   whatever reached it untrusted. Without only-trusted, other documents run as before, and Apollo's automatic
//   persisted queries (HTTP) register documents for authenticated callers only.
//
// admitOperation() is the one function that decides whether a parsed, valid operation may run.
import type { ApolloServerPlugin, GraphQLRequest } from "@apollo/server";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type ValidationRule,
} from "graphql";
import { ErrorCode, FieldErrorReason } from "../shared/errors";
import { MAX_QUERY_COST, queryCost } from "./query-cost";
import { hashOf, type TrustedDocuments } from "./trusted-documents";

/** Tokens one GraphQL document may hold; the largest query in the README has about 100. */
export const MAX_TOKENS = 2000;

/** Nodes the cost walk may visit (fragments spread many times count every time). */
const MAX_QUERY_NODES = 10_000;

const SUGGESTION = /Did you mean ".+"\?/g;
const SUGGESTION_MASK = "[Suggestion hidden]";

/** An operation that parsed and passed validation, as admitOperation() judges it. */
export interface OperationToAdmit {
  schema: GraphQLSchema;
  document: DocumentNode;
  /** The document's text as the client sent it. */
  source?: string;
  variables?: Record<string, unknown>;
  operationName?: string | null;
  /** True when the request named its document by a trusted id (the text is the manifest's). */
  trusted: boolean;
}

/** Which documents a deployment trusts (TRUSTED_DOCUMENTS) and whether only those run (TRUSTED_DOCUMENTS_ONLY). */
export interface DocumentTrust {
  documents?: TrustedDocuments;
  only: boolean;
}

/** A document refused by the policy: HTTP 400 on Apollo, BAD_REQUEST, with the reason. */
function refused(message: string, reason: FieldErrorReason): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.BAD_REQUEST, reason, http: { status: 400 } } });
}

const ONLY_TRUSTED =
  "Only trusted documents run on this service (TRUSTED_DOCUMENTS_ONLY): name the document by " +
  'documentId: "sha256:<hash>" from the manifest your frontend was built with, instead of sending its text';

/**
 * The operation a request runs: the one named by operationName, or the document's only one. None is a BAD_REQUEST in
 * graphql-js's own words (its execute() answers the same). Apollo goes on past an operation it could not resolve
 * (its didResolveOperation hooks and its executor get `undefined`), so admitOperation() refuses it here, for every
 * transport.
 */
function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  throw refused(
    operationName != null
      ? `Unknown operation named "${operationName}".`
      : document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION)
        ? "Must provide operation name if query contains multiple operations."
        : "Must provide an operation.",
    FieldErrorReason.MALFORMED_REQUEST,
  );
}

/** The operation that runs; throws a BAD_REQUEST GraphQLError unless it may run. */
export function admitOperation(
  { schema, document, variables, operationName, trusted }: OperationToAdmit,
  trust: DocumentTrust,
): OperationDefinitionNode {
  if (trust.only && !trusted) throw refused(ONLY_TRUSTED, FieldErrorReason.NOT_TRUSTED);
  const operation = operationOf(document, operationName);
  let cost: number;
  try {
    cost = queryCost(schema, document, variables, operationName, MAX_QUERY_NODES);
  } catch (err) {
    if (err instanceof GraphQLError && /number of nodes/.test(err.message)) {
      throw refused(
        `Query is too large to run: it has more than ${MAX_QUERY_NODES} fields once fragments are spread`,
        FieldErrorReason.TOO_COMPLEX,
      );
    }
    // Variables of the wrong type: execution reports them as GraphQL does, and runs nothing.
    return operation;
  }
  if (cost > MAX_QUERY_COST) {
    throw refused(
      `Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}: every list counts as its limit times the cost of ` +
        `its fields; ask for smaller pages or fewer nested lists`,
      FieldErrorReason.TOO_COMPLEX,
    );
  }
  return operation;
}

/** What a request says of its document: its text, or a name for it (HTTP body or query string, subscribe message). */
export interface DocumentRequest {
  query?: string | null;
  documentId?: unknown;
  extensions?: Record<string, unknown> | null;
}

/**
 * The document a request runs: `trusted` (named by the id of a trusted document, whose text it is), `persisted`
 * (Apollo's automatic persisted query: a hash not among the trusted documents, with or without the text) or `text`
 * (the request's own text).
 */
export type ResolvedDocument =
  | { kind: "trusted"; query: string }
  | { kind: "persisted"; query: string | undefined }
  | { kind: "text"; query: string | undefined };

/**
 * Finds the document a request names; throws a BAD_REQUEST GraphQLError for an id that names no trusted document, and
 * (TRUSTED_DOCUMENTS_ONLY) for anything not named by a trusted id. An empty query counts as none: graphql-ws requires
 * a string, so a WebSocket client naming its document sends "".
 */
export function resolveDocument(trust: DocumentTrust, request: DocumentRequest): ResolvedDocument {
  const query = request.query ? request.query : undefined;
  if (request.documentId !== undefined && request.documentId !== null) {
    const id = request.documentId;
    const hex = typeof id === "string" ? hashOf(id, { prefix: "required" }) : undefined;
    if (!hex) {
      throw refused(
        'documentId must be "sha256:" followed by the 64 hex digits of the document\'s SHA-256',
        FieldErrorReason.MALFORMED_REQUEST,
      );
    }
    const document = trust.documents?.get(hex);
    if (!document) {
      throw refused(
        trust.documents
          ? `documentId ${String(id)} is not one of this service's trusted documents (TRUSTED_DOCUMENTS): deploy the manifest your frontend was built with`
          : "This service has no trusted documents (TRUSTED_DOCUMENTS is not set): send the document's text as query",
        FieldErrorReason.NOT_TRUSTED,
      );
    }
    if (query !== undefined && query !== document) {
      throw refused("Send documentId or query, not both", FieldErrorReason.MALFORMED_REQUEST);
    }
    return { kind: "trusted", query: document };
  }
  const persisted = request.extensions?.persistedQuery;
  if (persisted && typeof persisted === "object") {
    const hash = (persisted as { sha256Hash?: unknown }).sha256Hash;
    const hex = typeof hash === "string" ? hashOf(hash, { prefix: "optional" }) : undefined;
    const document = hex ? trust.documents?.get(hex) : undefined;
    if (document && (query === undefined || query === document)) return { kind: "trusted", query: document };
    if (trust.only) throw refused(ONLY_TRUSTED, FieldErrorReason.NOT_TRUSTED);
    return { kind: "persisted", query };
  }
  if (trust.only) throw refused(ONLY_TRUSTED, FieldErrorReason.NOT_TRUSTED);
  return { kind: "text", query };
}

/** The documentId of an HTTP request: a field of the POST body, or a parameter of a GET's query string. */
function documentIdOf(http: GraphQLRequest["http"]): unknown {
  if (!http) return undefined;
  if (http.method === "GET") return new URLSearchParams(http.search).get("documentId") ?? undefined;
  const body = http.body;
  return body && typeof body === "object" && !Array.isArray(body)
    ? (body as { documentId?: unknown }).documentId
    : undefined;
}

/** What Apollo parses in place of a refused request's document (see apolloPlugins). */
const REFUSED_PLACEHOLDER = "{ __typename }";

/** The request's extensions without Apollo's persistedQuery (so Apollo neither checks nor registers it). */
function withoutPersistedQuery(request: GraphQLRequest): void {
  if (!request.extensions?.persistedQuery) return;
  const { persistedQuery: _removed, ...rest } = request.extensions;
  request.extensions = rest;
}

export interface DocumentPolicy {
  parseOptions: ParseOptions;
  /** Run after GraphQL's own rules. */
  validationRules: ValidationRule[];
  /**
   * Apollo plugins: armor's message masking (production); resolveDocument() when a request starts (a trusted id
   * becomes its document's text; an automatic persisted query registers only when `mayRegister` says the caller is
   * authenticated); admitOperation() once an operation is resolved.
   */
  apolloPlugins<TContext extends object>(mayRegister: (context: TContext) => boolean): ApolloServerPlugin<TContext>[];
  /** Which documents are trusted, and whether only those run. */
  trust: DocumentTrust;
  /** Whether Apollo's automatic persisted queries are on: off when only trusted documents run. */
  automaticPersistedQueries: boolean;
  /** An error message as clients may see it (production hides field suggestions). */
  message(text: string): string;
}

export function createDocumentPolicy(options: { production: boolean; trust?: DocumentTrust }): DocumentPolicy {
  const trust: DocumentTrust = options.trust ?? { only: false };
  const armor = new ApolloArmor({
    maxDepth: { n: 8 },
    // Armor's cost limit ignores list sizes; query-cost.ts counts them (limit × item cost) and replaces it.
    costLimit: { enabled: false },
    maxAliases: { n: 15 },
    maxTokens: { enabled: false },
    // Suggestions help people exploring in GraphiQL; hide the schema's shape from guessers in production.
    blockFieldSuggestion: { enabled: options.production, mask: SUGGESTION_MASK },
  });
  const protection = armor.protect();
  return {
    parseOptions: { maxTokens: MAX_TOKENS },
    validationRules: protection.validationRules,
    trust,
    automaticPersistedQueries: !trust.only,
    apolloPlugins<TContext extends object>(mayRegister: (context: TContext) => boolean) {
      const admission: ApolloServerPlugin<TContext> = {
        // Runs before Apollo reads the request's query and persisted-query extension.
        async requestDidStart({ request, contextValue }) {
          let resolved: ResolvedDocument;
          try {
            resolved = resolveDocument(trust, {
              query: request.query,
              documentId: documentIdOf(request.http),
              extensions: request.extensions,
            });
          } catch (err) {
            if (!(err instanceof GraphQLError)) throw err;
            // Apollo answers an error thrown here as an internal one; it answers errors of didResolveOperation as
            // they are (status 400, formatError, the outcome metric). So the refused request runs a fixed document
            // of one token's cost up to there, and is refused there: nothing the client sent is parsed or run.
            request.query = REFUSED_PLACEHOLDER;
            withoutPersistedQuery(request);
            return {
              async didResolveOperation() {
                throw err;
              },
            };
          }
          if (resolved.kind === "trusted") {
            request.query = resolved.query;
            withoutPersistedQuery(request);
          } else if (resolved.kind === "persisted" && resolved.query !== undefined && !mayRegister(contextValue)) {
            // Only authenticated callers register documents: the query still runs (and is refused like any
            // unauthenticated request), nothing is stored.
            withoutPersistedQuery(request);
          }
          const trusted = resolved.kind === "trusted";
          return {
            // The request's operationName, not Apollo's (the name of the operation it resolved, null when none).
            async didResolveOperation({ schema, document, request, source }) {
              const { variables, operationName } = request;
              admitOperation({ schema, document, source, variables, operationName, trusted }, trust);
            },
          };
        },
      };
      return [...(protection.plugins as ApolloServerPlugin<TContext>[]), admission];
    },
    message: (text) => (options.production ? text.replace(SUGGESTION, SUGGESTION_MASK).trim() : text),
  };
}

/** What a WebSocket subscribe message carries (graphql-ws's SubscribePayload, and a documentId). */
export interface OperationRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  documentId?: unknown;
  extensions?: Record<string, unknown> | null;
}

/**
 * For transports without Apollo: parses (token limit), validates (GraphQL's rules and the policy's) and admits a
 * request, returning the document and its operation, or the errors to answer with (nothing ran).
 */
export function prepareOperation(
  policy: DocumentPolicy,
  schema: GraphQLSchema,
  request: OperationRequest,
): { document: DocumentNode; operation: OperationDefinitionNode } | { errors: readonly GraphQLError[] } {
  let resolved: ResolvedDocument;
  try {
    resolved = resolveDocument(policy.trust, request);
  } catch (err) {
    if (err instanceof GraphQLError) return { errors: [err] };
    throw err;
  }
  if (resolved.query === undefined) {
    // Apollo's automatic persisted queries live in Apollo's cache, on HTTP only.
    return {
      errors: [
        refused(
          "Name a trusted document by documentId, or send the query's text: automatic persisted queries work over HTTP only",
          FieldErrorReason.NOT_TRUSTED,
        ),
      ],
    };
  }
  let document: DocumentNode;
  try {
    document = parse(resolved.query, policy.parseOptions);
  } catch (err) {
    if (err instanceof GraphQLError) return { errors: [err] };
    throw err;
  }
  const errors = validate(schema, document, [...specifiedRules, ...policy.validationRules]);
  if (errors.length > 0) return { errors };
  let operation: OperationDefinitionNode;
  try {
    operation = admitOperation(
      {
        schema,
        document,
        source: resolved.query,
        variables: request.variables ?? undefined,
        operationName: request.operationName,
        trusted: resolved.kind === "trusted",
      },
      policy.trust,
    );
  } catch (err) {
    if (err instanceof GraphQLError) return { errors: [err] };
    throw err;
  }
  return { document, operation };
}
