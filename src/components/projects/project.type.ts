// The GraphQL Project type (teacher is resolved in ProjectResolver through a loader).
import { Field, Int, ObjectType } from "type-graphql";
import { PageType, PayloadType } from "../../graphql/envelope.types";
import type { ProjectRecord } from "./project.service";

@ObjectType({ description: "A school or work project of a company" })
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

  @Field({ description: "ISO 8601 timestamp" })
  created_at!: string;

  @Field({ description: "ISO 8601 timestamp" })
  updated_at!: string;
}

export const ProjectPayload = PayloadType("ProjectPayload", Project);
export const ProjectPage = PageType("ProjectPage", Project);
