// The contract's rules for a stored student document (npm run db:check).
import { z } from "zod";
import { idKey } from "../../db/id-key";
import { quoted, storedId, storedProblems, storedTimestamp, type StoredProblem } from "../../shared/stored-rules";
import { SAFE_INT_MAX, type SameFields } from "../../shared/validation";
import type { StudentDoc } from "./student.model";
import { CreateStudentSchema } from "./student.schemas";

const StoredStudentFields = z.strictObject({
  student_id: storedId(SAFE_INT_MAX),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

true satisfies SameFields<
  z.input<typeof CreateStudentSchema> & z.input<typeof StoredStudentFields> & Pick<StudentDoc, "_id">,
  StudentDoc
>;

export function storedStudentProblems(doc: Record<string, unknown>): StoredProblem[] {
  const problems = [...storedProblems(doc, CreateStudentSchema), ...storedProblems(doc, StoredStudentFields)];
  if (Number.isInteger(doc.student_id) && doc._id !== idKey(doc.student_id as number)) {
    problems.push({ field: "_id", rule: `must be "${idKey(doc.student_id as number)}" (stored: ${quoted(doc._id)})` });
  }
  return problems;
}
