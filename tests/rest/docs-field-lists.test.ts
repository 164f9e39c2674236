// The field lists of the documentation are checked against the shapes the service checks: the body column of
// docs/rest.md's route table (each route's body fields, `?` for optional ones; `npm run schema` writes it) against the
// routes' body schemas (generated from the services' zod shapes), and the fields the validation rules of
// docs/contract.md and docs/api.md name (written by hand: each field's rule) against the GraphQL schema's mutation
// inputs.
import fs from "node:fs";
import path from "node:path";
import { buildSchema, isInputObjectType } from "graphql";
import { bodyFields } from "../../src/rest/generated-docs";
import { REST_ROUTES } from "../../src/rest/rest.plugin";

const docs = (name: string) => fs.readFileSync(path.join(__dirname, "../../docs", name), "utf8");
const sdl = buildSchema(fs.readFileSync(path.join(__dirname, "../../schema/schema.graphql"), "utf8"));

/** `{a, b?, c}` as written in a table cell: each field with `?` when optional, in order. */
function fieldsOf(cell: string): string[] {
  const braces = /\{([^}]*)\}/.exec(cell);
  if (!braces) return [];
  return braces[1]
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
}

describe("field lists in the documentation", () => {
  it("when docs/rest.md lists a route's body, then it names exactly the fields of the route's body schema, optional ones with ? (else: npm run schema)", () => {
    const rows = new Map<string, string[]>();
    for (const line of docs("rest.md").split("\n")) {
      const match = /^\| `(POST|PUT) ([^`]+)` \| `([^`]*)`/.exec(line);
      if (match) rows.set(`${match[1]} ${match[2]}`, fieldsOf(match[3]));
    }

    // Routes without a body (the deletions) have no body column.
    const expected = new Map(
      REST_ROUTES.filter((route) => route.body).map((route) => [
        `${route.method} ${route.url.replace(/:(\w+)/g, "{$1}")}`,
        bodyFields(route.body as never),
      ]),
    );

    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });

  it.each(["contract.md", "api.md"])(
    "when docs/%s lists the validation rules, then they name every field of the mutations' inputs and no other",
    (doc) => {
      const text = docs(doc);
      // The paragraph (or list) that follows "Validation", whether a heading or the paragraph's first word.
      const rest = text.slice(text.indexOf("Validation")).replace(/^Validation\n+/, "");
      const block = rest.slice(0, rest.indexOf("\n\n"));
      const named = new Set([...block.matchAll(/`([a-z]+(?:_[a-z]+)+|email)`/g)].map((m) => m[1]));
      const inputs = new Set<string>();
      for (const type of Object.values(sdl.getTypeMap())) {
        if (!isInputObjectType(type) || !/^(Create|Update|Assign)\w+Input$/.test(type.name)) continue;
        for (const name of Object.keys(type.getFields())) inputs.add(name);
      }

      expect([...inputs].filter((f) => !named.has(f))).toEqual([]);
      expect([...named].filter((f) => !inputs.has(f))).toEqual([]);
    },
  );
});
