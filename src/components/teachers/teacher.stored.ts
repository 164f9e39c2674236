// The contract's rules for a stored teacher document (npm run db:check).
import { z } from "zod";
import { idKey } from "../../db/id-key";
import { quoted, storedId, storedProblems, storedTimestamp, type StoredProblem } from "../../shared/stored-rules";
import type { SameFields } from "../../shared/validation";
import type { TeacherDoc } from "./teacher.model";
import { CreateTeacherSchema } from "./teacher.schemas";

const StoredTeacherFields = z.strictObject({
  teacher_id: storedId(),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

true satisfies SameFields<
  z.input<typeof CreateTeacherSchema> & z.input<typeof StoredTeacherFields> & Pick<TeacherDoc, "_id">,
  TeacherDoc
>;

export function storedTeacherProblems(doc: Record<string, unknown>): StoredProblem[] {
  const problems = [...storedProblems(doc, CreateTeacherSchema), ...storedProblems(doc, StoredTeacherFields)];
  if (Number.isInteger(doc.teacher_id) && doc._id !== idKey(doc.teacher_id as number)) {
    problems.push({ field: "_id", rule: `must be "${idKey(doc.teacher_id as number)}" (stored: ${quoted(doc._id)})` });
  }
  return problems;
}
