// The date scalars of the schema: graphql-scalars' LocalDate (YYYY-MM-DD, as stored) and a DateTime of the same name
// and meaning as graphql-scalars' that answers the text the API has always answered.
//
// Why not graphql-scalars' DateTime as it is: its serialize() returns a JavaScript Date, not a string. Over HTTP,
// JSON.stringify happens to write it as Date.toISOString() does, but everything that reads an execution result before
// it is stringified sees a Date object instead of the text (Apollo plugins reading `data`, graphql-ws's onNext hook,
// in-process execution such as Apollo's executeOperation), and a value is re-formatted rather than answered as stored
// ("…T12:34:56Z" becomes "…T12:34:56.000Z"). This one validates with graphql-scalars' own rules and answers a string:
// a UTC timestamp exactly as stored (the service stores Date.toISOString(), "2026-01-10T12:34:56.789Z"), any other
// valid date-time (or a Date) converted to UTC with toISOString().
import { GraphQLScalarType } from "graphql";
import { GraphQLDateTime, GraphQLLocalDate } from "graphql-scalars";
import { isCalendarDate } from "../shared/validation";

const UTC = /Z$/i;
const upstream = GraphQLDateTime.toConfig();

export const DateTime = new GraphQLScalarType<unknown, string>({
  ...upstream,
  description:
    "A date-time string at UTC in ISO 8601 (RFC 3339) form, such as 2026-01-10T12:34:56.789Z (Date.toISOString()); " +
    "graphql-scalars' DateTime, answered as text",
  serialize(value) {
    // Validates (and throws GraphQL's error for an invalid value) with graphql-scalars' rules.
    const date = upstream.serialize(value) as Date;
    return typeof value === "string" && UTC.test(value) ? value : date.toISOString();
  },
  extensions: { ...upstream.extensions, codegenScalarType: "string" },
});

const localDate = GraphQLLocalDate.toConfig();

/**
 * graphql-scalars' LocalDate: a real calendar date written YYYY-MM-DD, answered as stored. Answering one is the
 * common case (two per project, every page): a date isCalendarDate accepts is answered as it is, without
 * graphql-scalars' regular expression, Date and toISOString (5 % of the service's CPU for a page of 100); anything
 * else goes to graphql-scalars' own serialize, which answers or refuses it with its own error. isCalendarDate accepts
 * a subset of what graphql-scalars accepts (years 0100-9999), so every answer is the same
 * (tests/foundation/calendar-date.test.ts).
 */
export const LocalDate = new GraphQLScalarType<unknown, string>({
  ...localDate,
  serialize: (value) => (isCalendarDate(value) ? value : (localDate.serialize(value) as string)),
});
