// The GraphQL Project type (teacher and history are resolved in ProjectResolver) and its history entries.
import { Field, Int, ObjectType } from "type-graphql";
import { Node } from "../../graphql/node";
import { PageType } from "../../graphql/page.types";
import { PayloadType } from "../../graphql/payload.types";
import type { HasFields } from "../../shared/field-checks";
import type { ProjectRecord } from "./project.service";

@ObjectType({ description: "A school or work project of a company", implements: Node })
export class Project implements ProjectRecord {
  @Field(() => Int)
  project_id!: number;

  @Field()
  project_name!: string;

  @Field()
  project_desc!: string;

  @Field(() => Int)
  company_id!: number;

  @Field()
  project_status!: string;

  @Field(() => String, { nullable: true })
  project_url!: string | null;

  @Field({ description: "YYYY-MM-DD" })
  start_date!: string;

  @Field({ description: "YYYY-MM-DD" })
  end_date!: string;

  @Field(() => Int, { nullable: true, description: "null until a teacher is assigned" })
  teacher_id!: number | null;

  @Field(() => Int, { description: "1 when created, +1 on every change" })
  revision!: number;

  @Field(() => String, { nullable: true, description: "The caller id that created it, if known" })
  created_by!: string | null;

  @Field({ description: "ISO 8601 timestamp" })
  created_at!: string;

  @Field({ description: "ISO 8601 timestamp" })
  updated_at!: string;
}

@ObjectType({ description: "One field of a change: its value before and after, as text (null: none)" })
class FieldChange {
  @Field()
  field!: string;

  @Field(() => String, { nullable: true })
  from!: string | null;

  @Field(() => String, { nullable: true })
  to!: string | null;
}

@ObjectType({ description: "One recorded change of a project: who, when, which fields" })
export class ProjectChange {
  @Field(() => Int, { description: "The revision this change made" })
  revision!: number;

  @Field({ description: "createProject | assignTeacher | updateProjectStatus" })
  operation!: string;

  @Field(() => String, { nullable: true, description: "The caller id, if known" })
  actor_id!: string | null;

  @Field()
  actor_role!: string;

  @Field({ description: "ISO 8601 timestamp" })
  at!: string;

  @Field(() => [FieldChange])
  changes!: FieldChange[];
}

export const ProjectChangePage = PageType("ProjectChangePage", ProjectChange, {
  type: "One page of a project's changes, newest first",
  total: "Changes recorded, over all pages",
  has_more: "True when older changes follow this page",
});

// The compiler names a field declared on one side only (the class also `implements` the record, for the types).
true satisfies HasFields<
  Project,
  ProjectRecord,
  "stored (PROJECT_FIELDS in project.fields.ts) but not in the GraphQL type Project: add it with @Field() to project.type.ts"
>;
true satisfies HasFields<
  ProjectRecord,
  Project,
  "in the GraphQL type Project but not stored: add it to PROJECT_FIELDS in project.fields.ts"
>;

export const ProjectPayload = PayloadType("ProjectPayload", Project);
export const ProjectPage = PageType("ProjectPage", Project);
