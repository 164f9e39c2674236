// The record a repository hands out for a stored document, derived from the Mongoose document type so a field is
// declared once (in the model): the document without its storage-only keys (_id, and a component's own such as
// name_key), with the timestamps as ISO strings.
export type RecordOf<
  Doc extends { _id: unknown; created_at: Date; updated_at: Date },
  StorageOnly extends keyof Doc = never,
> = {
  [K in Exclude<keyof Doc, "_id" | StorageOnly | "created_at" | "updated_at">]: Doc[K];
} & { created_at: string; updated_at: string };
