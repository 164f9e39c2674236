// What each field of a record needs for the API to answer it (shared/record-guard.ts), derived from the collection's
// stored fields (stored-fields.ts), so a new field needs no rule of its own: a number must fit GraphQL's Int, a string
// is a string, either may be null when its default is null, and the timestamps are ISO timestamps. `formats` names
// the fields whose values must say more than their type: a "date", or a "safeint" (a number beyond Int).
import type { AnswerRule, AnswerRules } from "../shared/record-guard";
import type { RecordOf } from "./record-of";
import type { DocOf, StoredFields } from "./stored-fields";

export function answerRulesOf<Fields extends StoredFields, StorageOnly extends keyof Fields = never>(
  fields: Fields,
  storageOnly: readonly StorageOnly[] = [],
  formats: Partial<Record<Exclude<keyof Fields, StorageOnly>, AnswerRule>> = {},
): AnswerRules<RecordOf<DocOf<Fields>, StorageOnly>> {
  const rules: Record<string, AnswerRule> = {};
  for (const [name, field] of Object.entries(fields)) {
    if ((storageOnly as readonly string[]).includes(name)) continue;
    const nullable = "default" in field && field.default === null;
    const format = (formats as Record<string, AnswerRule | undefined>)[name];
    if (format) rules[name] = format;
    else if (field.type === Number) rules[name] = nullable ? "int?" : "int";
    else if (field.type === String) rules[name] = nullable ? "string?" : "string";
    else throw new Error(`${name}: no answer rule for a stored ${field.type.name}; name one in formats`);
  }
  rules.created_at = "timestamp";
  rules.updated_at = "timestamp";
  return rules as AnswerRules<RecordOf<DocOf<Fields>, StorageOnly>>;
}
