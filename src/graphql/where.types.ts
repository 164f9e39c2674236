// GraphQL input types every list's where and orderBy use (contract, sixth revision, "Lists a board can ask for"): the
// comparisons of each kind of field and OrderDirection. Shapes only: values are checked by the services
// (shared/list-where.ts), which name a refused value's path (where.or[2].end_date.gte) and reason.
import { GraphQLSafeInt } from "graphql-scalars";
import { Field, InputType, Int, registerEnumType } from "type-graphql";
import { WHERE_MAX_PREFIX, WHERE_MAX_VALUES } from "../shared/list-where";
import type { OrderDirection as OrderDirectionValue } from "../shared/list-order";
import { DateTime, LocalDate } from "./scalars";

export const OrderDirection: { [K in OrderDirectionValue]: K } = { ASC: "ASC", DESC: "DESC" };

registerEnumType(OrderDirection, {
  name: "OrderDirection",
  description: "Which way a list runs; ties are broken by the id in the same direction",
  valuesConfig: {
    ASC: { description: "Smallest first (A to Z, oldest first)" },
    DESC: { description: "Largest first (Z to A, newest first)" },
  },
});

const values = `1 to ${WHERE_MAX_VALUES} values`;

@InputType({ description: "Conditions on a whole-number field; all given hold. ne and notIn match a null field too" })
export class IntComparison {
  @Field(() => Int, { nullable: true, description: "Equal to" })
  eq?: number | null;
  @Field(() => Int, { nullable: true, description: "Not equal to (null matches)" })
  ne?: number | null;
  @Field(() => [Int], { nullable: true, description: `One of these (${values})` })
  in?: number[] | null;
  @Field(() => [Int], { nullable: true, description: `None of these (${values}; null matches)` })
  notIn?: number[] | null;
  @Field(() => Int, { nullable: true, description: "Greater than" })
  gt?: number | null;
  @Field(() => Int, { nullable: true, description: "Greater than or equal to" })
  gte?: number | null;
  @Field(() => Int, { nullable: true, description: "Less than" })
  lt?: number | null;
  @Field(() => Int, { nullable: true, description: "Less than or equal to" })
  lte?: number | null;
  @Field(() => Boolean, { nullable: true, description: "true: the field is null; false: it is set" })
  isNull?: boolean | null;
}

@InputType({ description: "Conditions on a SafeInt field (students' ids); all given hold" })
export class SafeIntComparison {
  @Field(() => GraphQLSafeInt, { nullable: true, description: "Equal to" })
  eq?: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: "Not equal to" })
  ne?: number | null;
  @Field(() => [GraphQLSafeInt], { nullable: true, description: `One of these (${values})` })
  in?: number[] | null;
  @Field(() => [GraphQLSafeInt], { nullable: true, description: `None of these (${values})` })
  notIn?: number[] | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: "Greater than" })
  gt?: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: "Greater than or equal to" })
  gte?: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: "Less than" })
  lt?: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: "Less than or equal to" })
  lte?: number | null;
}

@InputType({ description: "Conditions on a text field, compared exactly; all given hold. ne and notIn match null too" })
export class StringComparison {
  @Field(() => String, { nullable: true, description: "Equal to" })
  eq?: string | null;
  @Field(() => String, { nullable: true, description: "Not equal to (null matches)" })
  ne?: string | null;
  @Field(() => [String], { nullable: true, description: `One of these (${values})` })
  in?: string[] | null;
  @Field(() => [String], { nullable: true, description: `None of these (${values}; null matches)` })
  notIn?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: "true: the field is null; false: it is set" })
  isNull?: boolean | null;
}

@InputType({
  description:
    "Conditions on a name, compared folded: case, accents and surrounding spaces ignored (an email: case ignored)",
})
export class NameComparison {
  @Field(() => String, { nullable: true, description: "The whole name, folded" })
  eq?: string | null;
  @Field(() => String, {
    nullable: true,
    description: `The name's start, folded (1 to ${WHERE_MAX_PREFIX} characters): "ener" finds "Énergie solaire"`,
  })
  startsWith?: string | null;
}

@InputType({ description: "Conditions on a calendar date (YYYY-MM-DD); all given hold" })
export class DateComparison {
  @Field(() => LocalDate, { nullable: true, description: "On this day" })
  eq?: string | null;
  @Field(() => LocalDate, { nullable: true, description: "After this day" })
  gt?: string | null;
  @Field(() => LocalDate, { nullable: true, description: "On or after this day" })
  gte?: string | null;
  @Field(() => LocalDate, { nullable: true, description: "Before this day" })
  lt?: string | null;
  @Field(() => LocalDate, { nullable: true, description: "On or before this day" })
  lte?: string | null;
}

@InputType({ description: "Conditions on an instant (ISO 8601); all given hold" })
export class DateTimeComparison {
  @Field(() => DateTime, { nullable: true, description: "After this instant" })
  gt?: Date | string | null;
  @Field(() => DateTime, { nullable: true, description: "At or after this instant" })
  gte?: Date | string | null;
  @Field(() => DateTime, { nullable: true, description: "Before this instant" })
  lt?: Date | string | null;
  @Field(() => DateTime, { nullable: true, description: "At or before this instant" })
  lte?: Date | string | null;
}
