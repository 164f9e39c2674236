// One page of a collection's documents in one command: a find with its sort, skip and limit; or, with a join
// (another collection's $lookup stage), the same page as an aggregation ($match, $sort, $skip, $limit, $project, then
// the $lookup), which puts what each document refers to into it. Written as for MongoDB, which reads either page from
// the sort key's index; the embedded FerretDB's patch cuts the aggregation's page in SQLite too (pushdown.patch) and
// answers the whole join from storage, the page's values looked up in one read (readpath.patch).
import type { Model, PipelineStage, QueryFilter } from "mongoose";

/** A $lookup stage by equality, in MongoDB's words (no Mongoose type needed by those who build one). */
export interface LookupStage {
  $lookup: {
    from: string;
    localField: string;
    foreignField: string;
    pipeline?: { $project: Record<string, 0 | 1> }[];
    as: string;
  };
}

export interface PageReadRequest {
  /** Conditions on the collection's fields. */
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  /** Documents skipped, in the sort's order (none when undefined). */
  skip?: number;
  limit: number;
  /** Only these fields are read (and `_id`, unless the projection says `_id: 0`). */
  projection?: Record<string, 0 | 1>;
  /** Another collection's documents put into each document's field `join.$lookup.as`. */
  join?: LookupStage;
}

/** The page's documents, in the sort's order; with a join, each holds the join's `as` field too. */
export async function readPage<Doc>(
  model: Model<Doc>,
  request: PageReadRequest,
): Promise<(Doc & Record<string, unknown>)[]> {
  const { filter, sort, skip, limit, projection, join } = request;
  if (!join) {
    const find = model.find(filter as QueryFilter<Doc>);
    if (projection) find.select(projection);
    find.sort(sort);
    if (skip !== undefined) find.skip(skip);
    return (await find.limit(limit).lean()) as (Doc & Record<string, unknown>)[];
  }
  const pipeline: PipelineStage[] = [{ $match: filter }, { $sort: sort }];
  if (skip) pipeline.push({ $skip: skip });
  pipeline.push({ $limit: limit });
  if (projection) pipeline.push({ $project: projection });
  pipeline.push(join);
  return model.aggregate<Doc & Record<string, unknown>>(pipeline);
}
