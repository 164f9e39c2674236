// Stored fields derived from another stored field (a name's folded form, name_folded): written by the repositories on
// every create and rename, and brought up once, when a database opens, in the documents versions before the field
// stored (and in copies restored from them). A marker in `migrations` records that a collection was brought up;
// another instance doing the same at the same moment writes the same values.
import type { Connection, Model } from "mongoose";
import { isDuplicateKeyError } from "./id-allocator";
import { idKey } from "./id-key";

/** Documents read, and written back, in one command. */
const BATCH = 500;

export interface DerivedField {
  /** A marker name: a new derivation (another function) needs a new one. */
  marker: string;
  /** The numeric id field the collection is paged by (its `_id` is idKey of it). */
  idField: string;
  from: string;
  to: string;
  derive(value: string): string;
}

/**
 * Writes `to` = derive(`from`) into every document of the model's collection where it differs, once (the marker);
 * returns how many documents it wrote. Pages by the id field's index, so it reads each document once.
 */
export async function bringUpDerivedField<Doc>(
  connection: Connection,
  model: Model<Doc>,
  field: DerivedField,
): Promise<number> {
  const markers = connection.db!.collection<{ _id: string; at: Date }>("migrations");
  const marker = `${field.marker}:${model.collection.collectionName}`;
  if (await markers.findOne({ _id: marker })) return 0;
  let written = 0;
  for (let last = 0; ;) {
    const page = await model.collection
      .find({ [field.idField]: { $gt: last } } as never, {
        projection: { _id: 0, [field.idField]: 1, [field.from]: 1, [field.to]: 1 },
      })
      .sort({ [field.idField]: 1 })
      .limit(BATCH)
      .toArray();
    if (page.length === 0) break;
    last = page[page.length - 1][field.idField] as number;
    const updates = page.flatMap((doc) => {
      const from = doc[field.from];
      if (typeof from !== "string") return [];
      const value = field.derive(from);
      if (doc[field.to] === value) return [];
      const id = doc[field.idField] as number;
      return [{ updateOne: { filter: { _id: idKey(id) }, update: { $set: { [field.to]: value } } } }];
    });
    if (updates.length > 0) {
      await model.collection.bulkWrite(updates as never[], { ordered: false });
      written += updates.length;
    }
  }
  await markers.insertOne({ _id: marker, at: new Date() }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err;
  });
  return written;
}
