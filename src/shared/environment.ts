// Reading environment variables: the rules the service's configuration (src/config.ts), the tools' (embedded
// database, src/db/tool-config.ts) and the bench's (bench/bench-config.ts) are built from, and the one-line
// ConfigError a bad value stops the process with ("Invalid NAME (value): what it accepts").
import { z } from "zod";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** How a configuration error shows a variable's value: as sent, hidden (secrets), or with a URI's password masked. */
type Shown = "hidden" | "uri";

/** Marks a rule whose value a configuration error must not print (or only with the URI's password masked). */
export const shownAs = <S extends z.ZodType>(rule: S, shown: Shown): S => rule.meta({ shown });

/** A trimmed string; undefined when unset or blank. */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** A whole number within [min, max] from an environment string; `fallback` when unset or empty. */
export const wholeNumber = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback;
      if (!/^\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
        ctx.addIssue({ code: "custom", message: `accepts a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return Number(v);
    });

/** true or false (case-insensitive); undefined when unset or blank, so the caller decides the default. */
export const optionalBoolean = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const value = v?.trim().toLowerCase();
    if (value === undefined || value === "") return undefined;
    if (value === "true") return true;
    if (value === "false") return false;
    ctx.addIssue({ code: "custom", message: "accepts true or false" });
    return z.NEVER;
  });

/** One of `values`, case-insensitive; `fallback` when unset or blank. */
export const oneOf = <const V extends readonly [string, ...string[]]>(values: V, fallback: V[number]) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? fallback : v.trim().toLowerCase()))
    .pipe(z.enum(values, { message: `accepts ${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}` }));

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** scheme://user:password@host… → scheme://user:***@host…; greedy to the last "@" so a raw "@" in it leaks nothing. */
function maskUriPassword(uri: string): string {
  return uri.replace(/^([^:/?#]+:\/\/[^:@/]*):(.*)@/, "$1:***@");
}

function printableValue(rule: z.ZodType | undefined, value: string): string {
  const shown = (rule?.meta() as { shown?: Shown } | undefined)?.shown;
  if (shown === "hidden") return `${value.length} characters, value hidden`;
  return JSON.stringify(shown === "uri" ? maskUriPassword(value) : value);
}

/** Parses env with a schema of variables; throws ConfigError with one line on the first bad variable. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue.path[0]);
  const got = env[name];
  const shown = got === undefined ? "" : ` (${printableValue(schema.shape[name] as z.ZodType | undefined, got)})`;
  throw new ConfigError(`Invalid ${name}${shown}: ${issue.message}`);
}
