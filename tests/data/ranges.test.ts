// "Everything one transport accepts, the other can answer" (contract, third revision): every whole number a client
// can send — each field of every REST request body and path, and every GraphQL input field and argument — is walked,
// and the range it is accepted in must fit the output type of the field that answers it. A new integer input that is
// not mapped to its answer here fails with a message saying so.
import { getNamedType, isInputObjectType, isObjectType, type GraphQLField, type GraphQLInputField } from "graphql";
import { z } from "zod";
import { getSchema } from "../../src/graphql/schema";
import { REST_ROUTES } from "../../src/rest/rest.plugin";

type Range = [number, number];

/** What each integer scalar of the schema can carry, in and out. */
const SCALAR_RANGES: Record<string, Range> = {
  Int: [-(2 ** 31), 2 ** 31 - 1],
  SafeInt: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/**
 * The output field ("Type.field") that answers an input field or argument of this name; null when no output ever
 * returns the value (nothing to fit).
 */
const ANSWERED_BY: Record<string, string | null> = {
  company_id: "Project.company_id",
  teacher_id: "Project.teacher_id",
  new_teacher_id: "Project.teacher_id",
  expected_revision: "Project.revision",
  after_revision: "Project.revision",
  projectId: "Project.project_id",
  teacherId: "Teacher.teacher_id",
  studentId: "Student.student_id",
  offset: "ProjectPage.offset",
  limit: "ProjectPage.limit",
  // Connection page sizes (0…100): no connection returns them.
  first: null,
  last: null,
  // The values of a where's comparisons (IntComparison, SafeIntComparison): compared with a field, never answered;
  // the service checks each within its field's range (shared/list-where.ts).
  eq: null,
  ne: null,
  in: null,
  notIn: null,
  gt: null,
  gte: null,
  lt: null,
  lte: null,
};

const schema = getSchema();

function outputRange(inputName: string, where: string): Range | null {
  if (!(inputName in ANSWERED_BY)) {
    throw new Error(
      `${where} is a whole number a client can send, but no output field is named as its answer: add "${inputName}" to ANSWERED_BY in tests/data/ranges.test.ts`,
    );
  }
  const answer = ANSWERED_BY[inputName];
  if (answer === null) return null;
  const [typeName, fieldName] = answer.split(".");
  const type = schema.getType(typeName);
  if (!isObjectType(type) || !type.getFields()[fieldName]) throw new Error(`${answer} is not an output field`);
  const scalar = getNamedType(type.getFields()[fieldName].type).name;
  const range = SCALAR_RANGES[scalar];
  if (!range) throw new Error(`${answer} (${scalar}) is not a whole-number type`);
  return range;
}

interface IntegerInput {
  where: string;
  name: string;
  accepted: Range;
}

/** Every Int/SafeInt input field and argument of the GraphQL schema, accepted within its scalar's range. */
function graphqlIntegerInputs(): IntegerInput[] {
  const found: IntegerInput[] = [];
  const add = (where: string, item: GraphQLInputField | GraphQLField<unknown, unknown>["args"][number]) => {
    const range = SCALAR_RANGES[getNamedType(item.type).name];
    if (range) found.push({ where, name: item.name, accepted: range });
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) add(`GraphQL input ${type.name}.${field.name}`, field);
    } else if (isObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) add(`GraphQL argument ${type.name}.${field.name}(${arg.name})`, arg);
      }
    }
  }
  return found;
}

interface JsonProperty {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
}

const isInteger = (property: JsonProperty) => [property.type].flat().includes("integer");

/** Every whole number of every REST body and path, accepted within what the route's schema (from zod) allows. */
function restIntegerInputs(): IntegerInput[] {
  const found: IntegerInput[] = [];
  for (const route of REST_ROUTES) {
    const properties = (route.body as { properties?: Record<string, JsonProperty> } | undefined)?.properties ?? {};
    for (const [name, property] of Object.entries(properties)) {
      if (!isInteger(property)) continue;
      found.push({
        where: `REST ${route.method} ${route.url} body field ${name}`,
        name,
        accepted: [property.minimum ?? -Infinity, property.maximum ?? Infinity],
      });
    }
    if (route.pathArg) {
      const json = z.toJSONSchema(route.pathArg) as { properties: Record<string, JsonProperty> };
      for (const [name, property] of Object.entries(json.properties)) {
        found.push({
          where: `REST ${route.method} ${route.url} path parameter ${name}`,
          name,
          accepted: [property.minimum ?? -Infinity, property.maximum ?? Infinity],
        });
      }
    }
  }
  return found;
}

describe("ranges both transports can answer", () => {
  const inputs = [...graphqlIntegerInputs(), ...restIntegerInputs()];

  it("finds the whole numbers of both transports (the walk sees what it must)", () => {
    const where = inputs.map((input) => input.where);
    expect(where).toEqual(
      expect.arrayContaining([
        "GraphQL input CreateProjectInput.company_id",
        "GraphQL argument Mutation.updateStudent(studentId)",
        "GraphQL argument Teacher.projects(limit)",
        "REST POST /projects body field company_id",
        "REST PUT /projects/:projectId/teacher body field expected_revision",
        "REST PUT /students/:studentId path parameter studentId",
      ]),
    );
  });

  it.each(inputs.map((input) => [input.where, input] as const))(
    "%s is accepted only within what the field answering it can return",
    (_where, input) => {
      const answer = outputRange(input.name, input.where);
      if (answer === null) return;
      const [low, high] = input.accepted;
      expect({ where: input.where, fits: low >= answer[0] && high <= answer[1], accepted: input.accepted }).toEqual({
        where: input.where,
        fits: true,
        accepted: input.accepted,
      });
    },
  );

  it("the contract's ranges: ids, company_id and expected_revision 1…2,147,483,647; student ids up to 2^53 − 1", () => {
    const byWhere = Object.fromEntries(inputs.map((input) => [input.where, input.accepted]));
    expect(byWhere["REST POST /projects body field company_id"]).toEqual([1, 2_147_483_647]);
    expect(byWhere["REST PUT /projects/:projectId/teacher body field new_teacher_id"]).toEqual([1, 2_147_483_647]);
    expect(byWhere["REST PUT /projects/:projectId/teacher body field expected_revision"]).toEqual([1, 2_147_483_647]);
    expect(byWhere["REST PUT /projects/:projectId/teacher path parameter projectId"]).toEqual([1, 2_147_483_647]);
    expect(byWhere["REST PUT /teachers/:teacherId path parameter teacherId"]).toEqual([1, 2_147_483_647]);
    expect(byWhere["REST PUT /students/:studentId path parameter studentId"]).toEqual([1, Number.MAX_SAFE_INTEGER]);
  });
});
