// The contract's rules for a stored teacher document (npm run db:check): see storedRules.
import { z } from "zod";
import { storedId, storedRules, storedTimestamp } from "../../shared/stored-rules";
import type { TeacherDoc } from "./teacher.model";
import { CreateTeacherSchema } from "./teacher.schemas";

export const storedTeacherProblems = storedRules<TeacherDoc>()(
  CreateTeacherSchema,
  z.strictObject({ teacher_id: storedId(), created_at: storedTimestamp(), updated_at: storedTimestamp() }),
  "teacher_id",
);
