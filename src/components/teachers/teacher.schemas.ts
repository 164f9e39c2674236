// The one definition of the teacher operations' input shapes (zod): service input types, checks, REST JSON schemas,
// and the compile-time check of the GraphQL input classes (teacher.inputs.ts) all come from here.
import { z } from "zod";
import { nameField, positiveIdField } from "../../shared/validation";

export const CreateTeacherSchema = z.strictObject({ teacher_name: nameField() }).meta({ description: "A new teacher" });
export const UpdateTeacherSchema = z
  .strictObject({ teacher_name: nameField() })
  .meta({ description: "A teacher's new name" });

/** Path or GraphQL argument naming a teacher. */
export const TeacherIdArg = z.strictObject({ teacherId: positiveIdField() });

/** What updateTeacher checks at once: the argument and the input's fields. */
export const UpdateTeacherRequest = TeacherIdArg.extend(UpdateTeacherSchema.shape);

export type CreateTeacherValues = z.input<typeof CreateTeacherSchema>;
export type UpdateTeacherValues = z.input<typeof UpdateTeacherSchema>;
