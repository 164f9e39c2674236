// Documents store their numeric id again as a string `_id`. FerretDB 1.24 answers a filter on a string `_id` alone
// from its SQLite primary key; a filter on any other field reads the whole collection. Point reads therefore
// filter on `{ _id: idKey(id) }`; on MongoDB both are indexed and it makes no difference.
export const idKey = (id: number): string => String(id);
