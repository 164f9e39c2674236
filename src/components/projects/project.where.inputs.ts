// GraphQL types of what a list of projects can be filtered, ordered and counted by (contract, sixth revision): ProjectWhere,
// ProjectOrder and its fields, ProjectGroupField, and projectCounts' answer. Shapes only; the rules are
// project.where.ts and the shared list rules.
import { Field, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
import {
  DateComparison,
  DateTimeComparison,
  IntComparison,
  NameComparison,
  OrderDirection,
  StringComparison,
} from "../../graphql/where.types";
import type { OrderDirection as OrderDirectionValue } from "../../shared/list-order";
import { WHERE_MAX_DEPTH, WHERE_MAX_ENTRIES } from "../../shared/list-where";
import {
  MAX_GROUPS,
  PROJECT_GROUP_FIELDS,
  PROJECT_ORDER_FIELDS,
  type ProjectGroupField as ProjectGroupFieldValue,
  type ProjectOrderField as ProjectOrderFieldValue,
} from "./project.where";

const entries = `1 to ${WHERE_MAX_ENTRIES} entries; and, or and not nest at most ${WHERE_MAX_DEPTH} deep`;

@InputType({
  description:
    "Which projects a list holds: every field given holds (and); {} matches every project. Beside filter, both must match",
})
export class ProjectWhere {
  @Field(() => Boolean, {
    nullable: true,
    description:
      "Absent or false: projects not archived (every list's default); true: archived ones only. Only at the where's top level",
  })
  archived?: boolean | null;

  @Field(() => IntComparison, { nullable: true, description: "The project's project_id" })
  project_id?: IntComparison | null;
  @Field(() => IntComparison, { nullable: true, description: "The company's id" })
  company_id?: IntComparison | null;
  @Field(() => IntComparison, {
    nullable: true,
    description: "The assigned teacher's id; { isNull: true } is no teacher yet",
  })
  teacher_id?: IntComparison | null;
  @Field(() => StringComparison, { nullable: true, description: "The status" })
  project_status?: StringComparison | null;
  @Field(() => StringComparison, { nullable: true, description: "The caller id that created it" })
  created_by?: StringComparison | null;
  @Field(() => NameComparison, { nullable: true, description: "The name, folded (case, accents, spaces ignored)" })
  project_name?: NameComparison | null;
  @Field(() => DateComparison, { nullable: true, description: "The first day" })
  start_date?: DateComparison | null;
  @Field(() => DateComparison, { nullable: true, description: "The last day (the deadline)" })
  end_date?: DateComparison | null;
  @Field(() => DateTimeComparison, { nullable: true, description: "When it was created" })
  created_at?: DateTimeComparison | null;
  @Field(() => DateTimeComparison, { nullable: true, description: "When it last changed" })
  updated_at?: DateTimeComparison | null;
  @Field(() => [ProjectWhere], { nullable: true, description: `Every entry holds (${entries})` })
  and?: ProjectWhere[] | null;
  @Field(() => [ProjectWhere], { nullable: true, description: `At least one entry holds (${entries})` })
  or?: ProjectWhere[] | null;
  @Field(() => ProjectWhere, { nullable: true, description: "The entry does not hold (a null field matches)" })
  not?: ProjectWhere | null;
}

export const ProjectOrderField = Object.fromEntries(PROJECT_ORDER_FIELDS.map((v) => [v, v])) as {
  [K in ProjectOrderFieldValue]: K;
};

const ORDER_DESCRIPTIONS: Record<ProjectOrderFieldValue, string> = {
  PROJECT_ID: "By project_id (the default)",
  PROJECT_NAME: "By name, folded (case, accents and surrounding spaces ignored)",
  PROJECT_STATUS: "By status",
  COMPANY_ID: "By company",
  START_DATE: "By first day",
  END_DATE: "By last day (deadlines in order)",
  CREATED_AT: "By creation time",
  UPDATED_AT: "By time of the last change",
};

registerEnumType(ProjectOrderField, {
  name: "ProjectOrderField",
  description: "The field a list of projects is ordered by, then by project_id in the same direction",
  valuesConfig: Object.fromEntries(PROJECT_ORDER_FIELDS.map((v) => [v, { description: ORDER_DESCRIPTIONS[v] }])),
});

@InputType({ description: "The order of a list of projects: a field, then project_id, in one direction" })
export class ProjectOrder {
  @Field(() => ProjectOrderField, { description: "The field ordered by" })
  field!: ProjectOrderFieldValue;
  @Field(() => OrderDirection, { defaultValue: "ASC", description: "Ascending (the default) or descending" })
  direction!: OrderDirectionValue;
}

export const ProjectGroupField = Object.fromEntries(Object.keys(PROJECT_GROUP_FIELDS).map((v) => [v, v])) as {
  [K in ProjectGroupFieldValue]: K;
};

registerEnumType(ProjectGroupField, {
  name: "ProjectGroupField",
  description: "The field projectCounts counts by",
  valuesConfig: {
    PROJECT_STATUS: { description: "One group per status (a board's columns)" },
    COMPANY_ID: { description: "One group per company" },
    TEACHER_ID: { description: "One group per teacher; the group with a null key has no teacher yet" },
  },
});

@ObjectType({ simpleResolvers: true, description: "How many projects hold one value of the grouped field" })
export class ProjectGroupCount {
  @Field(() => String, {
    nullable: true,
    description: 'The group\'s value as text ("active", "7"); null: no value (no teacher yet)',
  })
  key!: string | null;
  @Field(() => Int, { description: "Projects in the group" })
  count!: number;
}

@ObjectType({ simpleResolvers: true, description: "Counts of the projects a where matches" })
export class ProjectCounts {
  @Field(() => Int, { description: "Every project matched (that the caller may read)" })
  total!: number;
  @Field(() => [ProjectGroupCount], {
    description: `One entry per value of groupBy, largest count first, then by value; at most ${MAX_GROUPS}; empty without groupBy`,
  })
  groups!: ProjectGroupCount[];
  @Field({ description: `Whether more than ${MAX_GROUPS} groups exist (those beyond are left out)` })
  hasMoreGroups!: boolean;
}
