// How the recipe names its documents to the service: by id. With `persistedDocuments` (codegen.ts) each generated
// document carries its hash, "sha256:<hex>", and src/gql/persisted-documents.json maps it to the text; the service
// loads that manifest (TRUSTED_DOCUMENTS) and, with TRUSTED_DOCUMENTS_ONLY, runs nothing else. So a request sends
// `documentId` (GraphQL over HTTP's persisted documents) and never the text.

/** A generated document: its __meta__ holds the hash (TypedDocumentString of src/gql/graphql.ts). */
interface PersistedDocument {
  __meta__?: Record<string, unknown>;
}

/** The document's id in the manifest; a document generated without persistedDocuments has none. */
export function documentIdOf(document: PersistedDocument): string {
  const hash = document.__meta__?.hash;
  if (typeof hash !== "string") throw new Error("the document has no hash: generate it with persistedDocuments");
  return hash;
}

/** An HTTP request's body naming `document` by its id. */
export function persistedRequest<TVariables>(document: PersistedDocument, variables: TVariables) {
  return { documentId: documentIdOf(document), variables };
}

/**
 * A graphql-ws subscribe payload naming `document` by its id. graphql-ws requires `query` to be a string: it is
 * empty, and the service reads documentId.
 */
export function persistedSubscription<TVariables>(document: PersistedDocument, variables: TVariables) {
  return { query: "", documentId: documentIdOf(document), variables };
}
