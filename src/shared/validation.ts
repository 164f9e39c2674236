// Value validation shared by every transport: the domain services call these, so GraphQL and REST apply
// exactly the same rules and messages. Each failure is a BAD_REQUEST naming the offending field.
import { isEmail, isURL } from "class-validator";
import { badRequest } from "./errors";

export const LIMITS = {
  name: 200,
  project_desc: 5000,
  class_code: 32,
  project_status: 64,
  email: 254,
  project_url: 2048,
} as const;

/** Trims and checks a text field's length (counted in characters, not UTF-16 units). */
export function text(field: string, value: unknown, max: number): string {
  if (typeof value !== "string") throw badRequest(`${field} must be a string`);
  const trimmed = value.trim();
  const length = [...trimmed].length;
  if (length < 1 || length > max) {
    throw badRequest(
      length < 1 ? `${field} must not be empty` : `${field} must be at most ${max} characters (got ${length})`,
    );
  }
  return trimmed;
}

/** A whole number ≥ 1 (ids, company_id). */
export function positiveId(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw badRequest(`${field} must be a whole number of at least 1`);
  }
  return value;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written YYYY-MM-DD. */
export function calendarDate(field: string, value: unknown): string {
  const match = typeof value === "string" ? DATE.exec(value) : null;
  if (match) {
    const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const date = new Date(Date.UTC(y, m - 1, d));
    if (date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d) return value as string;
  }
  throw badRequest(`${field} must be a real calendar date written YYYY-MM-DD`);
}

/** An absolute http(s) URL of at most 2048 characters, or null when absent. */
export function optionalHttpUrl(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw badRequest(`${field} must be a string`);
  const url = value.trim();
  if (url.length > LIMITS.project_url) throw badRequest(`${field} must be at most ${LIMITS.project_url} characters`);
  const ok =
    isURL(url, { protocols: ["http", "https"], require_protocol: true, require_valid_protocol: true, require_tld: false }) &&
    /^https?:\/\//i.test(url);
  if (!ok) throw badRequest(`${field} must be an absolute http or https URL`);
  return url;
}

/** A valid e-mail address, returned lower-cased. */
export function email(field: string, value: unknown): string {
  if (typeof value !== "string") throw badRequest(`${field} must be a string`);
  const address = value.trim().toLowerCase();
  if (address.length > LIMITS.email || !isEmail(address)) throw badRequest(`${field} must be a valid e-mail address`);
  return address;
}

/** The key that makes two names equal when they differ only in case or surrounding spaces. */
export function nameKey(name: string): string {
  return name.trim().normalize("NFC").toLowerCase();
}
