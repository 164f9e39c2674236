// The one definition of the project operations' input shapes (zod). From these come the TypeScript types of the
// service inputs, the checks the service runs (every invalid field at once), the REST JSON schemas (rest/schemas.ts)
// and, through `implements`, a compile-time check of the GraphQL input classes (project.inputs.ts).
import { z } from "zod";
import { FieldErrorReason } from "../../shared/errors";
import {
  calendarDateField,
  GRAPHQL_INT_MAX,
  isCalendarDate,
  LIMITS,
  nameField,
  optionalHttpUrlField,
  positiveIdField,
  textField,
} from "../../shared/validation";

const statusField = () =>
  textField(LIMITS.project_status, "identifier").meta({
    description: `trimmed, 1–${LIMITS.project_status} characters; PROJECT_STATUS_WORKFLOW may restrict it`,
  });

export const CreateProjectSchema = z
  .strictObject({
    project_name: nameField().meta({
      description: `trimmed, 1–${LIMITS.name} characters; unique per company_id, ignoring case`,
    }),
    project_desc: textField(LIMITS.project_desc, "multiline").meta({
      description: `trimmed, 1–${LIMITS.project_desc} characters; may span lines (newline and tab allowed)`,
    }),
    company_id: positiveIdField(),
    project_status: statusField(),
    project_url: optionalHttpUrlField(),
    start_date: calendarDateField(),
    end_date: calendarDateField().meta({
      description: "a real calendar date written YYYY-MM-DD, not before start_date",
    }),
  })
  // Runs even when other fields failed (when), so this problem is listed with theirs.
  .refine(
    (values) =>
      !(isCalendarDate(values.start_date) && isCalendarDate(values.end_date) && values.end_date < values.start_date),
    {
      when: ({ value }) => typeof value === "object" && value !== null,
      path: ["end_date"],
      params: { reason: FieldErrorReason.OUT_OF_RANGE },
      error: (issue) => {
        const { start_date, end_date } = issue.input as { start_date: string; end_date: string };
        return `${end_date} is before start_date ${start_date}`;
      },
    },
  )
  .meta({ description: "A new project" });

/** Optimistic concurrency: when given, the change applies only to this revision of the project (else CONFLICT). */
const expectedRevisionField = () =>
  positiveIdField().nullish().meta({
    description: "the project's revision the change was decided on; another revision is CONFLICT and nothing changes",
  });

export const AssignTeacherSchema = z
  .strictObject({
    new_teacher_id: positiveIdField().meta({
      description: `the teacher_id of the teacher to assign: a whole number from 1 to ${GRAPHQL_INT_MAX}`,
    }),
    expected_revision: expectedRevisionField(),
  })
  .meta({ description: "The teacher to assign, and optionally the revision the change was decided on" });

export const UpdateProjectStatusSchema = z
  .strictObject({
    project_status: statusField(),
    expected_revision: expectedRevisionField(),
  })
  .meta({ description: "The new status, and optionally the revision the change was decided on" });

export const ProjectFilterSchema = z
  .strictObject({
    company_id: positiveIdField().nullish(),
    project_status: statusField().nullish(),
    teacher_id: positiveIdField().nullish(),
  })
  .meta({ description: "Every field given narrows the list" });

/** Path or GraphQL argument naming a project. */
export const ProjectIdArg = z.strictObject({ projectId: positiveIdField() });

/** What the service checks at once: the argument and the input's fields, one flat list of field names. */
export const AssignTeacherRequest = ProjectIdArg.extend(AssignTeacherSchema.shape);
export const UpdateProjectStatusRequest = ProjectIdArg.extend(UpdateProjectStatusSchema.shape);

export type CreateProjectValues = z.input<typeof CreateProjectSchema>;
/** What the create shape makes of CreateProjectValues: the values a new project is stored with. */
export type ValidCreateProjectValues = z.output<typeof CreateProjectSchema>;
export type AssignTeacherValues = z.input<typeof AssignTeacherSchema>;
export type UpdateProjectStatusValues = z.input<typeof UpdateProjectStatusSchema>;
export type ProjectFilter = z.input<typeof ProjectFilterSchema>;
