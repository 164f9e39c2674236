// Queries run as compiled code (graphql-jit) instead of graphql-js's interpreter: graphql-js decides, for every field
// of every item, which type it is, how to complete it and whether it waits for a promise; graphql-jit writes that out
// once per document as a function. Everything else of Apollo's pipeline stays (parsing, validation, the document
// policy, the query cost, plugins, the envelope): Apollo runs a gateway's executor instead of graphql-js's execute,
// and this is such a gateway, over the service's own schema.
//
// Only the answers graphql-js would give: a query that graphql-jit cannot compile, and any execution whose result
// holds an error, runs again through graphql-js (reads only, so running again changes nothing, and the request's
// loaders answer what the first run read), so every error, its message, path and the data around it are graphql-js's.
// Mutations always run through graphql-js (their fields run one after the other, and they change data).
// tests/graphql/compiled-execution.test.ts runs queries both ways and compares the answers.
import type { ApolloServerOptionsWithGateway, BaseContext } from "@apollo/server";
import {
  execute,
  getNamedType,
  isInputObjectType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputObjectType,
  type GraphQLSchema,
} from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";

type Gateway = ApolloServerOptionsWithGateway<BaseContext>["gateway"];
type GatewayExecutor = NonNullable<Awaited<ReturnType<Gateway["load"]>>["executor"]>;

/**
 * Per document object (Apollo keeps each parsed document it has validated, one per text, in its bounded store) and
 * operation name: how often it ran, and once it runs a second time, its compiled query (null: graphql-jit could not
 * compile it). A document seen once runs through graphql-js: compiling (0.2-0.4 ms, about one execution of a page)
 * pays off only for documents that repeat, and a caller sending ever new documents makes no compiled code.
 */
type Compiled = Map<string, { runs: number; query?: CompiledQuery | null }>;

export function compiledExecutionGateway(schema: GraphQLSchema): Gateway {
  const compiledByDocument = new WeakMap<DocumentNode, Compiled>();

  function compiledOf(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    let compiled = compiledByDocument.get(document);
    if (!compiled) compiledByDocument.set(document, (compiled = new Map()));
    const key = operationName ?? "";
    let entry = compiled.get(key);
    if (!entry) compiled.set(key, (entry = { runs: 0 }));
    entry.runs++;
    if (entry.query === undefined && entry.runs >= 2) {
      // graphql-jit writes out the coercion of each variable's input type field by field, without end for an input
      // type that holds itself (ProjectWhere's and/or/not): such documents stay with graphql-js.
      if (takesRecursiveInput(schema, document, operationName)) entry.query = null;
      else {
        const result = compileQuery(schema, document, operationName ?? undefined);
        entry.query = isCompiledQuery(result) ? result : null;
      }
    }
    return entry.query ?? null;
  }

  const executor: GatewayExecutor = async (requestContext) => {
    const { document, request, operation, context } = requestContext;
    const run = () =>
      execute({
        schema,
        document,
        contextValue: context,
        variableValues: request.variables,
        operationName: request.operationName,
      }) as ExecutionResult | Promise<ExecutionResult>;
    const compiled = operation.operation === "query" ? compiledOf(document, request.operationName) : null;
    if (!compiled) return (await run()) as never;
    let result: ExecutionResult;
    try {
      result = await compiled.query(undefined, context, request.variables ?? {});
    } catch {
      // graphql-jit's own failure, not the query's: graphql-js answers it.
      return (await run()) as never;
    }
    return (result.errors?.length ? await run() : result) as never;
  };

  return {
    async load() {
      return { schema, executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: "" });
      return () => undefined;
    },
    async stop() {},
  };
}

/** Whether a variable of the operation has an input object type that holds itself, at any depth. */
function takesRecursiveInput(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): boolean {
  const operation = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (operationName == null || d.name?.value === operationName),
  );
  if (operation?.kind !== Kind.OPERATION_DEFINITION) return false;
  return (operation.variableDefinitions ?? []).some((variable) => {
    const type = typeFromAST(schema, variable.type);
    const named = type && getNamedType(type);
    return named !== undefined && isInputObjectType(named) && holdsItself(named, named, new Set());
  });
}

function holdsItself(root: GraphQLInputObjectType, type: GraphQLInputObjectType, seen: Set<string>): boolean {
  if (seen.has(type.name)) return false;
  seen.add(type.name);
  return Object.values(type.getFields()).some((field) => {
    const named = getNamedType(field.type);
    return isInputObjectType(named) && (named === root || holdsItself(root, named, seen));
  });
}
