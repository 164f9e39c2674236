// The one definition of the student operations' input shapes (zod): service input types, checks, REST JSON schemas,
// and the compile-time check of the GraphQL input classes (student.inputs.ts) all come from here.
import { z } from "zod";
import { emailField, LIMITS, nameField, positiveIdField, SAFE_INT_MAX, textField } from "../../shared/validation";

const classCodeField = () =>
  textField(LIMITS.class_code, "identifier").meta({ description: `trimmed, 1–${LIMITS.class_code} characters` });

export const CreateStudentSchema = z
  .strictObject({
    student_name: nameField(),
    email: emailField().meta({ description: "a valid e-mail address, unused by other students; stored lower-cased" }),
    class_code: classCodeField(),
  })
  .meta({ description: "A new student" });

/** Only these fields can change (not email); a field left out or null stays as it is. */
export const UpdateStudentSchema = z
  .strictObject({
    student_name: nameField().nullish(),
    class_code: classCodeField().nullish(),
  })
  .meta({ description: "Only these fields can change (not email); with neither field nothing changes" });

export const StudentFilterSchema = z
  .strictObject({ class_code: classCodeField().nullish() })
  .meta({ description: "Every field given narrows the list" });

/** Path or GraphQL argument naming a student (int64 within ±(2^53−1)). */
export const StudentIdArg = z.strictObject({ studentId: positiveIdField(SAFE_INT_MAX) });

/** What updateStudent checks at once: the argument and the input's fields. */
export const UpdateStudentRequest = StudentIdArg.extend(UpdateStudentSchema.shape);

export type CreateStudentValues = z.input<typeof CreateStudentSchema>;
export type UpdateStudentValues = z.input<typeof UpdateStudentSchema>;
export type StudentFilter = z.input<typeof StudentFilterSchema>;
