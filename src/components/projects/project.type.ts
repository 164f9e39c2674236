// The GraphQL Project type (teacher and history are resolved in ProjectResolver) and its history entries.
import { Field, Int, ObjectType } from "type-graphql";
import { Node } from "../../graphql/node";
import { PageType } from "../../graphql/page.types";
import { DateTime, LocalDate } from "../../graphql/scalars";
import { ProjectOperation, Role } from "./project-changes.enums";
import { PayloadType } from "../../graphql/payload.types";
import type { HasFields } from "../../shared/field-checks";
import type { ProjectOperation as ProjectOperationValue } from "./project.records";
import type { ActorRole } from "../../auth/actor";
import type { ProjectRecord } from "./project.service";

@ObjectType({ simpleResolvers: true, description: "A school or work project of a company", implements: Node })
export class Project implements ProjectRecord {
  @Field(() => Int, { description: "The project's id, given by the service: a whole number from 1" })
  project_id!: number;

  @Field({ description: "Trimmed, 1–200 characters; unique per company_id, ignoring case" })
  project_name!: string;

  @Field({ description: "Trimmed, 1–5000 characters; may span lines" })
  project_desc!: string;

  @Field(() => Int, { description: "The company the project is for" })
  company_id!: number;

  @Field({ description: "The status, 1–64 characters; PROJECT_STATUS_WORKFLOW may restrict statuses and changes" })
  project_status!: string;

  @Field(() => String, { nullable: true, description: "An absolute http or https URL; null when none was given" })
  project_url!: string | null;

  @Field(() => LocalDate, { description: "The first day, YYYY-MM-DD" })
  start_date!: string;

  @Field(() => LocalDate, { description: "The last day, YYYY-MM-DD; not before start_date" })
  end_date!: string;

  @Field(() => Int, { nullable: true, description: "null until a teacher is assigned" })
  teacher_id!: number | null;

  @Field(() => Int, { description: "1 when created, +1 on every change" })
  revision!: number;

  @Field(() => String, { nullable: true, description: "The caller id that created it, if known" })
  created_by!: string | null;

  @Field(() => DateTime, { description: "When it was created (ISO 8601, UTC)" })
  created_at!: string;

  @Field(() => DateTime, { description: "When it last changed (ISO 8601, UTC)" })
  updated_at!: string;

  @Field(() => DateTime, {
    nullable: true,
    description:
      "When it was archived (ISO 8601, UTC); null while it is not archived (archiveProject, unarchiveProject)",
  })
  archived_at!: string | null;
}

@ObjectType({
  simpleResolvers: true,
  description: "One field of a change: its value before and after, as text (null: none)",
})
class FieldChange {
  @Field({ description: "The field that changed, as Project names it (teacher_id, project_status, …)" })
  field!: string;

  @Field(() => String, { nullable: true, description: "The value before the change, as text; null: none" })
  from!: string | null;

  @Field(() => String, { nullable: true, description: "The value after the change, as text; null: none" })
  to!: string | null;
}

@ObjectType({ simpleResolvers: true, description: "One recorded change of a project: who, when, which fields" })
export class ProjectChange {
  @Field(() => Int, { description: "The revision this change made" })
  revision!: number;

  @Field(() => ProjectOperation, { description: "The operation that made the change" })
  operation!: ProjectOperationValue;

  @Field(() => String, { nullable: true, description: "The caller id, if known" })
  actor_id!: string | null;

  @Field(() => Role, { description: "The role its author acted in" })
  actor_role!: ActorRole;

  @Field(() => DateTime, { description: "When the change was committed (ISO 8601, UTC)" })
  at!: string;

  @Field(() => [FieldChange], { description: "Each field the change set, with its old and new value" })
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
