// The contract's rules for a stored teacher document (npm run db:check): see storedRules.
import { z } from "zod";
import type { HasFields } from "../../shared/field-checks";
import { storedId, storedRules, storedTimestamp, type StoredRulesCover } from "../../shared/stored-rules";
import type { TeacherDoc } from "./teacher.model";
import { CreateTeacherSchema } from "./teacher.schemas";

/** What the service adds to a teacher's input when it stores it. */
const StoredTeacherFields = z.strictObject({
  teacher_id: storedId(),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

export const storedTeacherProblems = storedRules(CreateTeacherSchema, StoredTeacherFields, "teacher_id");

type CheckedTeacherFields = StoredRulesCover<TeacherDoc, typeof CreateTeacherSchema, typeof StoredTeacherFields>;
true satisfies HasFields<
  CheckedTeacherFields,
  TeacherDoc,
  "stored (TEACHER_FIELDS in teacher.fields.ts) but npm run db:check has no rule for it: add it to CreateTeacherSchema in teacher.schemas.ts, or to StoredTeacherFields in teacher.stored.ts if the service sets it"
>;
true satisfies HasFields<
  TeacherDoc,
  CheckedTeacherFields,
  "in CreateTeacherSchema (teacher.schemas.ts) or StoredTeacherFields (teacher.stored.ts) but not stored: add it to TEACHER_FIELDS in teacher.fields.ts"
>;
