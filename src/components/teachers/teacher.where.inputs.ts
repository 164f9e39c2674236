// GraphQL types of what a list of teachers can be filtered and ordered by (contract, sixth revision): TeacherWhere,
// TeacherOrder and TeacherOrderField. Shapes only; the rules are teacher.where.ts and the shared list rules.
import { Field, InputType, registerEnumType } from "type-graphql";
import { IntComparison, NameComparison, OrderDirection } from "../../graphql/where.types";
import type { OrderDirection as OrderDirectionValue } from "../../shared/list-order";
import { WHERE_MAX_DEPTH, WHERE_MAX_ENTRIES } from "../../shared/list-where";
import { TEACHER_ORDER_FIELDS, type TeacherOrderField as TeacherOrderFieldValue } from "./teacher.where";

const entries = `1 to ${WHERE_MAX_ENTRIES} entries; and, or and not nest at most ${WHERE_MAX_DEPTH} deep`;

@InputType({ description: "Which teachers a list holds: every field given holds (and); {} matches every teacher" })
export class TeacherWhere {
  @Field(() => IntComparison, { nullable: true, description: "The teacher's teacher_id" })
  teacher_id?: IntComparison | null;
  @Field(() => NameComparison, { nullable: true, description: "The name, folded (case, accents, spaces ignored)" })
  teacher_name?: NameComparison | null;
  @Field(() => [TeacherWhere], { nullable: true, description: `Every entry holds (${entries})` })
  and?: TeacherWhere[] | null;
  @Field(() => [TeacherWhere], { nullable: true, description: `At least one entry holds (${entries})` })
  or?: TeacherWhere[] | null;
  @Field(() => TeacherWhere, { nullable: true, description: "The entry does not hold" })
  not?: TeacherWhere | null;
}

export const TeacherOrderField = Object.fromEntries(TEACHER_ORDER_FIELDS.map((v) => [v, v])) as {
  [K in TeacherOrderFieldValue]: K;
};

registerEnumType(TeacherOrderField, {
  name: "TeacherOrderField",
  description: "The field a list of teachers is ordered by, then by teacher_id in the same direction",
  valuesConfig: {
    TEACHER_ID: { description: "By teacher_id (the default)" },
    TEACHER_NAME: { description: "By name, folded (case, accents and surrounding spaces ignored)" },
  },
});

@InputType({ description: "The order of a list of teachers: a field, then teacher_id, in one direction" })
export class TeacherOrder {
  @Field(() => TeacherOrderField, { description: "The field ordered by" })
  field!: TeacherOrderFieldValue;
  @Field(() => OrderDirection, { defaultValue: "ASC", description: "Ascending (the default) or descending" })
  direction!: OrderDirectionValue;
}
