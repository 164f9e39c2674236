// The record fields a GraphQL selection of Project reads, so a read asks the database for those only.
import { recordFieldsFor } from "../../graphql/selection";
import { PROJECT_ANSWER_RULES, type ProjectField } from "./project.service";

const PROJECT_RECORD_FIELDS = Object.keys(PROJECT_ANSWER_RULES) as ProjectField[];

/**
 * What each field of Project that is not a record field reads of the record. A field added to Project and missing
 * here makes a selection holding it read whole records (recordFieldsFor).
 */
const PROJECT_COMPUTED_FIELDS: Record<string, readonly ProjectField[]> = {
  __typename: [],
  id: ["project_id"],
  teacher: ["teacher_id"],
  history: ["project_id", "revision"],
};

/** The record fields a selection of Project reads (undefined: all); project_id always (the key, the Node type). */
export function projectFieldsFor(selected: ReadonlySet<string>): ProjectField[] | undefined {
  return recordFieldsFor(selected, PROJECT_RECORD_FIELDS, PROJECT_COMPUTED_FIELDS, ["project_id"]);
}
