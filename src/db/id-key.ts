// Documents store their numeric id again as a string `_id`, and point reads and writes filter on `{ _id: idKey(id) }`:
// FerretDB 1.24 writes (update, delete) by `_id` only, and the embedded FerretDB's `_id` index serves both; on
// MongoDB (and for reads on the embedded FerretDB, which pushes filters on indexed fields down) both are indexed.
export const idKey = (id: number): string => String(id);
