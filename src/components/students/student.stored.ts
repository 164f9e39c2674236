// The contract's rules for a stored student document (npm run db:check).
import { z } from "zod";
import {
  idKeyProblems,
  storedId,
  storedProblems,
  storedTimestamp,
  type StoredProblem,
} from "../../shared/stored-rules";
import type { HasFields } from "../../shared/field-checks";
import { SAFE_INT_MAX } from "../../shared/validation";
import type { StudentDoc } from "./student.model";
import { CreateStudentSchema } from "./student.schemas";

const StoredStudentFields = z.strictObject({
  student_id: storedId(SAFE_INT_MAX),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

/** The fields npm run db:check has a rule for: the input shape's, those the service adds, the derived keys. */
type CheckedStudentFields = z.input<typeof CreateStudentSchema> &
  z.input<typeof StoredStudentFields> &
  Pick<StudentDoc, "_id">;
true satisfies HasFields<
  CheckedStudentFields,
  StudentDoc,
  "stored (STUDENT_FIELDS in student.fields.ts) but npm run db:check has no rule for it: add it to StoredStudentFields in this file"
>;
true satisfies HasFields<
  StudentDoc,
  CheckedStudentFields,
  "npm run db:check has a rule for it (from CreateStudentSchema or StoredStudentFields) but it is not stored: add it to STUDENT_FIELDS in student.fields.ts"
>;

export function storedStudentProblems(doc: Record<string, unknown>): StoredProblem[] {
  const problems = [
    ...storedProblems(doc, CreateStudentSchema),
    ...storedProblems(doc, StoredStudentFields),
    ...idKeyProblems(doc, "student_id"),
  ];
  return problems;
}
