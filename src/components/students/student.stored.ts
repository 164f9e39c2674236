// The contract's rules for a stored student document (npm run db:check): see storedRules.
import { z } from "zod";
import { storedId, storedRules, storedTimestamp } from "../../shared/stored-rules";
import { SAFE_INT_MAX } from "../../shared/validation";
import type { StudentDoc } from "./student.model";
import { CreateStudentSchema } from "./student.schemas";

export const storedStudentProblems = storedRules<StudentDoc>()(
  CreateStudentSchema,
  z.strictObject({ student_id: storedId(SAFE_INT_MAX), created_at: storedTimestamp(), updated_at: storedTimestamp() }),
  "student_id",
);
