// What `npm run schema` writes for the REST facade, from the route declarations: schema/openapi.json (the OpenAPI
// document GET /openapi.json answers, keys sorted so it changes only when its meaning does) and the body column of
// docs/rest.md's route table (each route's body fields, `?` for optional ones). Tests check both are current.
import path from "node:path";
import { REPO_ROOT } from "../shared/package-root";
import { openApiDocument } from "./docs";
import { REST_ROUTES } from "./rest.plugin";

export const OPENAPI_FILE = path.join(REPO_ROOT, "schema", "openapi.json");
export const REST_DOC_FILE = path.join(REPO_ROOT, "docs", "rest.md");

/** `value` with the keys of every object in order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!value || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortedKeys(object[key])]),
  );
}

/** An OpenAPI document as committed in schema/openapi.json. */
export function printOpenApi(document: unknown): string {
  return `${JSON.stringify(sortedKeys(document), null, 2)}\n`;
}

/** schema/openapi.json as the route declarations give it. */
export async function printCurrentOpenApi(): Promise<string> {
  return printOpenApi(await openApiDocument());
}

/** A body schema's fields as docs/rest.md writes them: `?` for those not required, in the schema's order. */
export function bodyFields(body: { properties?: Record<string, unknown>; required?: readonly string[] }): string[] {
  const required = new Set(body.required ?? []);
  return Object.keys(body.properties ?? {}).map((field) => (required.has(field) ? field : `${field}?`));
}

/** A row of docs/rest.md's route table: "| `POST /projects` | `{a, b?}` ..." (path ids written `{projectId}`). */
const ROUTE_ROW = /^(\| `(POST|PUT) ([^`]+)` \| `)\{[^}]*\}(`.*)$/;

/** docs/rest.md with each route row's body cell written from its route's body schema; other lines as they are. */
export function withRestBodyFields(markdown: string): string {
  const bodies = new Map(
    REST_ROUTES.filter((route) => route.body).map((route) => [
      `${route.method} ${route.url.replace(/:(\w+)/g, "{$1}")}`,
      bodyFields(route.body as never),
    ]),
  );
  return markdown
    .split("\n")
    .map((line) => {
      const row = ROUTE_ROW.exec(line);
      const fields = row && bodies.get(`${row[2]} ${row[3]}`);
      return fields ? `${row[1]}{${fields.join(", ")}}${row[4]}` : line;
    })
    .join("\n");
}
