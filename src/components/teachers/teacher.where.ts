// What a list of teachers can be filtered and ordered by (contract, sixth revision: TeacherWhere, TeacherOrder): each
// field with its kind of comparison and the stored field it compares or sorts by. The rules are shared
// (shared/list-where.ts, shared/list-order.ts); GraphQL's input types are teacher.where.inputs.ts.
import type { OrderField, OrderFields } from "../../shared/list-order";
import type { WhereFields } from "../../shared/list-where";
import { foldedName } from "../../shared/validation";
import type { TeacherRecord } from "./teacher.repository";

export const TEACHER_WHERE_FIELDS: WhereFields = {
  teacher_id: { kind: "id", stored: "teacher_id" },
  teacher_name: { kind: "name", stored: "name_folded" },
};

export const TEACHER_ORDER_FIELDS = ["TEACHER_ID", "TEACHER_NAME"] as const;
export type TeacherOrderField = (typeof TEACHER_ORDER_FIELDS)[number];

const ORDER_FIELDS: Record<TeacherOrderField, OrderField<TeacherRecord>> = {
  TEACHER_ID: { stored: "teacher_id", kind: "number", reads: ["teacher_id"], valueOf: (t) => t.teacher_id },
  TEACHER_NAME: {
    stored: "name_folded",
    kind: "text",
    reads: ["teacher_name"],
    valueOf: (t) => foldedName(t.teacher_name),
  },
};

export const TEACHER_ORDERS: OrderFields<TeacherRecord> = {
  kind: "Teacher",
  idOrder: "TEACHER_ID",
  id: "teacher_id",
  fields: ORDER_FIELDS,
};
