// GraphQL types of what a list of students can be filtered and ordered by (contract, sixth revision): StudentWhere,
// StudentOrder and StudentOrderField. Shapes only; the rules are student.where.ts and the shared list rules.
import { Field, InputType, registerEnumType } from "type-graphql";
import { NameComparison, OrderDirection, SafeIntComparison, StringComparison } from "../../graphql/where.types";
import type { OrderDirection as OrderDirectionValue } from "../../shared/list-order";
import { WHERE_MAX_DEPTH, WHERE_MAX_ENTRIES } from "../../shared/list-where";
import { STUDENT_ORDER_FIELDS, type StudentOrderField as StudentOrderFieldValue } from "./student.where";

const entries = `1 to ${WHERE_MAX_ENTRIES} entries; and, or and not nest at most ${WHERE_MAX_DEPTH} deep`;

@InputType({ description: "Which students a list holds: every field given holds (and); {} matches every student" })
export class StudentWhere {
  @Field(() => SafeIntComparison, { nullable: true, description: "The student's student_id" })
  student_id?: SafeIntComparison | null;
  @Field(() => NameComparison, { nullable: true, description: "The name, folded (case, accents, spaces ignored)" })
  student_name?: NameComparison | null;
  @Field(() => NameComparison, { nullable: true, description: "The e-mail address, ignoring case" })
  email?: NameComparison | null;
  @Field(() => StringComparison, { nullable: true, description: "The class code, exactly" })
  class_code?: StringComparison | null;
  @Field(() => [StudentWhere], { nullable: true, description: `Every entry holds (${entries})` })
  and?: StudentWhere[] | null;
  @Field(() => [StudentWhere], { nullable: true, description: `At least one entry holds (${entries})` })
  or?: StudentWhere[] | null;
  @Field(() => StudentWhere, { nullable: true, description: "The entry does not hold" })
  not?: StudentWhere | null;
}

export const StudentOrderField = Object.fromEntries(STUDENT_ORDER_FIELDS.map((v) => [v, v])) as {
  [K in StudentOrderFieldValue]: K;
};

registerEnumType(StudentOrderField, {
  name: "StudentOrderField",
  description: "The field a list of students is ordered by, then by student_id in the same direction",
  valuesConfig: {
    STUDENT_ID: { description: "By student_id (the default)" },
    STUDENT_NAME: { description: "By name, folded (case, accents and surrounding spaces ignored)" },
    CLASS_CODE: { description: "By class code" },
  },
});

@InputType({ description: "The order of a list of students: a field, then student_id, in one direction" })
export class StudentOrder {
  @Field(() => StudentOrderField, { description: "The field ordered by" })
  field!: StudentOrderFieldValue;
  @Field(() => OrderDirection, { defaultValue: "ASC", description: "Ascending (the default) or descending" })
  direction!: OrderDirectionValue;
}
