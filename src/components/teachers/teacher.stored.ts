// The contract's rules for a stored teacher document (npm run db:check): see storedRules.
import { z } from "zod";
import type { HasFields } from "../../shared/field-checks";
import { quoted, storedId, storedRules, storedTimestamp, type StoredRulesCover } from "../../shared/stored-rules";
import { foldedName } from "../../shared/validation";
import type { TeacherDoc } from "./teacher.model";
import { CreateTeacherSchema } from "./teacher.schemas";

/** What the service adds to a teacher's input when it stores it. */
const StoredTeacherFields = z.strictObject({
  teacher_id: storedId(),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

/** A stored teacher: the rules of storedRules, and name_folded derived from teacher_name. */
export const storedTeacherProblems = storedRules(CreateTeacherSchema, StoredTeacherFields, "teacher_id", (doc) =>
  typeof doc.teacher_name === "string" && doc.name_folded !== foldedName(doc.teacher_name)
    ? [
        {
          field: "name_folded",
          rule: `must be ${quoted(foldedName(doc.teacher_name))}, teacher_name folded for lists (stored: ${quoted(doc.name_folded)})`,
        },
      ]
    : [],
);

type CheckedTeacherFields = StoredRulesCover<
  TeacherDoc,
  typeof CreateTeacherSchema,
  typeof StoredTeacherFields,
  "name_folded"
>;
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
