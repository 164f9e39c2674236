// The contract's rules for a stored student document (npm run db:check): see storedRules.
import { z } from "zod";
import type { HasFields } from "../../shared/field-checks";
import { quoted, storedId, storedRules, storedTimestamp, type StoredRulesCover } from "../../shared/stored-rules";
import { foldedName, SAFE_INT_MAX } from "../../shared/validation";
import type { StudentDoc } from "./student.model";
import { CreateStudentSchema } from "./student.schemas";

/** What the service adds to a student's input when it stores it. */
const StoredStudentFields = z.strictObject({
  student_id: storedId(SAFE_INT_MAX),
  created_at: storedTimestamp(),
  updated_at: storedTimestamp(),
});

/** A stored student: the rules of storedRules, and name_folded derived from student_name. */
export const storedStudentProblems = storedRules(CreateStudentSchema, StoredStudentFields, "student_id", (doc) =>
  typeof doc.student_name === "string" && doc.name_folded !== foldedName(doc.student_name)
    ? [
        {
          field: "name_folded",
          rule: `must be ${quoted(foldedName(doc.student_name))}, student_name folded for lists (stored: ${quoted(doc.name_folded)})`,
        },
      ]
    : [],
);

type CheckedStudentFields = StoredRulesCover<
  StudentDoc,
  typeof CreateStudentSchema,
  typeof StoredStudentFields,
  "name_folded"
>;
true satisfies HasFields<
  CheckedStudentFields,
  StudentDoc,
  "stored (STUDENT_FIELDS in student.fields.ts) but npm run db:check has no rule for it: add it to CreateStudentSchema in student.schemas.ts, or to StoredStudentFields in student.stored.ts if the service sets it"
>;
true satisfies HasFields<
  StudentDoc,
  CheckedStudentFields,
  "in CreateStudentSchema (student.schemas.ts) or StoredStudentFields (student.stored.ts) but not stored: add it to STUDENT_FIELDS in student.fields.ts"
>;
