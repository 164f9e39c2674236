// What a list of students can be filtered and ordered by (contract, sixth revision: StudentWhere, StudentOrder): each
// field with its kind of comparison and the stored field it compares or sorts by. An email compares ignoring case
// (emails are stored lower-cased). The rules are shared (shared/list-where.ts, shared/list-order.ts); GraphQL's input
// types are student.where.inputs.ts.
import type { OrderField, OrderFields } from "../../shared/list-order";
import type { WhereFields } from "../../shared/list-where";
import { foldedName, LIMITS } from "../../shared/validation";
import type { StudentRecord } from "./student.repository";

export const STUDENT_WHERE_FIELDS: WhereFields = {
  student_id: { kind: "safeId", stored: "student_id" },
  student_name: { kind: "name", stored: "name_folded" },
  email: { kind: "email", stored: "email" },
  class_code: { kind: "text", stored: "class_code", max: LIMITS.class_code },
};

export const STUDENT_ORDER_FIELDS = ["STUDENT_ID", "STUDENT_NAME", "CLASS_CODE"] as const;
export type StudentOrderField = (typeof STUDENT_ORDER_FIELDS)[number];

const ORDER_FIELDS: Record<StudentOrderField, OrderField<StudentRecord>> = {
  STUDENT_ID: { stored: "student_id", kind: "number", reads: ["student_id"], valueOf: (s) => s.student_id },
  STUDENT_NAME: {
    stored: "name_folded",
    kind: "text",
    reads: ["student_name"],
    valueOf: (s) => foldedName(s.student_name),
  },
  CLASS_CODE: { stored: "class_code", kind: "text", reads: ["class_code"], valueOf: (s) => s.class_code },
};

export const STUDENT_ORDERS: OrderFields<StudentRecord> = {
  kind: "Student",
  idOrder: "STUDENT_ID",
  id: "student_id",
  fields: ORDER_FIELDS,
};
