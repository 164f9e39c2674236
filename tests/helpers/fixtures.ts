// What every kind of test acts with: header-mode role headers and values unique within the test run.
import pino from "pino";
import type { Headers } from "./app";

export const ADMIN: Headers = { "x-user-role": "admin" };
/** Students' personal data is for teachers and admins (contract: "Who may read what"). */
export const TEACHER: Headers = { "x-user-role": "teacher" };
export const STUDENT: Headers = { "x-user-role": "student" };

let sequence = 0;
/** A value unique within the test run (the worker's pid and a counter), for names and emails. */
export function unique(prefix = "x"): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${sequence}`;
}

/** A logger that writes nothing, for services built outside an app. */
export const silentLogger = pino({ level: "silent" });
