// The contract's rules for a stored teacher document (npm run db:check).
import { z } from "zod";
import {
  idKeyProblems,
  storedId,
  storedProblems,
  storedTimestamp,
  type StoredProblem,
} from "../../shared/stored-rules";
import type { HasFields } from "../../shared/field-checks";
import type { TeacherDoc } from "./teacher.model";
import { CreateTeacherSchema } from "./teacher.schemas";

const StoredTeacherFields = z.strictObject({
  teacher_id: storedId(),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

/** The fields npm run db:check has a rule for: the input shape's, those the service adds, the derived keys. */
type CheckedTeacherFields = z.input<typeof CreateTeacherSchema> &
  z.input<typeof StoredTeacherFields> &
  Pick<TeacherDoc, "_id">;
true satisfies HasFields<
  CheckedTeacherFields,
  TeacherDoc,
  "stored (TEACHER_FIELDS in teacher.fields.ts) but npm run db:check has no rule for it: add it to StoredTeacherFields in this file"
>;
true satisfies HasFields<
  TeacherDoc,
  CheckedTeacherFields,
  "npm run db:check has a rule for it (from CreateTeacherSchema or StoredTeacherFields) but it is not stored: add it to TEACHER_FIELDS in teacher.fields.ts"
>;

export function storedTeacherProblems(doc: Record<string, unknown>): StoredProblem[] {
  const problems = [
    ...storedProblems(doc, CreateTeacherSchema),
    ...storedProblems(doc, StoredTeacherFields),
    ...idKeyProblems(doc, "teacher_id"),
  ];
  return problems;
}
