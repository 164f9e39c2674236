// What a list of projects can be filtered, ordered and counted by (contract, sixth revision, "Lists a board can ask
// for"): each ProjectWhere field with its kind of comparison and the stored field it compares, each ProjectOrder
// field with the stored field it sorts by, and the fields projectCounts groups by. The rules of comparisons, orders
// and cursors are shared (shared/list-where.ts, shared/list-order.ts); GraphQL's input types are project.where.inputs.ts.
import type { OrderField, OrderFields } from "../../shared/list-order";
import type { WhereFields } from "../../shared/list-where";
import { foldedName, LIMITS } from "../../shared/validation";
import type { ProjectRecord } from "./project.records";

export const PROJECT_WHERE_FIELDS: WhereFields = {
  project_id: { kind: "id", stored: "project_id" },
  company_id: { kind: "id", stored: "company_id" },
  teacher_id: { kind: "id", stored: "teacher_id" },
  project_status: { kind: "text", stored: "project_status", max: LIMITS.project_status },
  created_by: { kind: "text", stored: "created_by", max: 1024 },
  project_name: { kind: "name", stored: "name_folded" },
  start_date: { kind: "date", stored: "start_date" },
  end_date: { kind: "date", stored: "end_date" },
  created_at: { kind: "instant", stored: "created_at" },
  updated_at: { kind: "instant", stored: "updated_at" },
};

/** ProjectOrderField's values, in the contract's order. */
export const PROJECT_ORDER_FIELDS = [
  "PROJECT_ID",
  "PROJECT_NAME",
  "PROJECT_STATUS",
  "COMPANY_ID",
  "START_DATE",
  "END_DATE",
  "CREATED_AT",
  "UPDATED_AT",
] as const;
export type ProjectOrderField = (typeof PROJECT_ORDER_FIELDS)[number];

const ORDER_FIELDS: Record<ProjectOrderField, OrderField<ProjectRecord>> = {
  PROJECT_ID: { stored: "project_id", kind: "number", reads: ["project_id"], valueOf: (p) => p.project_id },
  // Names order by their folded form (the stored name_folded), which is derived from project_name alone.
  PROJECT_NAME: {
    stored: "name_folded",
    kind: "text",
    reads: ["project_name"],
    valueOf: (p) => foldedName(p.project_name),
  },
  PROJECT_STATUS: {
    stored: "project_status",
    kind: "text",
    reads: ["project_status"],
    valueOf: (p) => p.project_status,
  },
  COMPANY_ID: { stored: "company_id", kind: "number", reads: ["company_id"], valueOf: (p) => p.company_id },
  START_DATE: { stored: "start_date", kind: "text", reads: ["start_date"], valueOf: (p) => p.start_date },
  END_DATE: { stored: "end_date", kind: "text", reads: ["end_date"], valueOf: (p) => p.end_date },
  CREATED_AT: { stored: "created_at", kind: "instant", reads: ["created_at"], valueOf: (p) => p.created_at },
  UPDATED_AT: { stored: "updated_at", kind: "instant", reads: ["updated_at"], valueOf: (p) => p.updated_at },
};

export const PROJECT_ORDERS: OrderFields<ProjectRecord> = {
  kind: "Project",
  idOrder: "PROJECT_ID",
  id: "project_id",
  fields: ORDER_FIELDS,
};

/** ProjectGroupField's values and the stored field each counts by. */
export const PROJECT_GROUP_FIELDS = {
  PROJECT_STATUS: "project_status",
  COMPANY_ID: "company_id",
  TEACHER_ID: "teacher_id",
} as const;
export type ProjectGroupField = keyof typeof PROJECT_GROUP_FIELDS;

/** Groups projectCounts answers at most. */
export const MAX_GROUPS = 100;
