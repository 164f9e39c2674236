// Field resolvers set on the schema as written (direct-field-resolvers.ts): those that take only the record, the
// context and the info answer as type-graphql's wrapper would; every other one (a role to check, an argument to
// convert, a root to turn into its class) keeps the wrapper and what it does.
import "reflect-metadata";
import { graphql, type GraphQLResolveInfo, type GraphQLSchema } from "graphql";
import {
  Arg,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  Info,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
  buildSchemaSync,
} from "type-graphql";
import { callFieldResolversAsWritten } from "../../src/graphql/direct-field-resolvers";

@ObjectType()
class Box {
  @Field()
  name!: string;
}

interface BoxRecord {
  name: string;
}

interface BoxContext {
  role: string;
  suffix: string;
}

@Resolver(() => Box)
class BoxResolver {
  private readonly separator = ":";

  @Query(() => Box)
  box(): BoxRecord {
    return { name: "crate" };
  }

  @FieldResolver(() => String)
  label(@Root() box: BoxRecord, @Ctx() ctx: BoxContext): string {
    return `${box.name}${this.separator}${ctx.suffix}`;
  }

  @FieldResolver(() => String)
  path(@Info() info: GraphQLResolveInfo, @Root() box: BoxRecord): string {
    return `${info.parentType.name}.${info.fieldName}@${box.name}`;
  }

  @Authorized(["admin"])
  @FieldResolver(() => String)
  secret(@Root() box: BoxRecord): string {
    return `the key of ${box.name}`;
  }

  @FieldResolver(() => String)
  repeated(@Root() box: BoxRecord, @Arg("times", () => Int) times: number): string {
    return box.name.repeat(times);
  }

  @FieldResolver(() => Boolean)
  asInstance(@Root() box: Box): boolean {
    return box instanceof Box;
  }
}

describe("field resolvers set on the schema as written", () => {
  let schema: GraphQLSchema;
  let direct: string[];
  beforeAll(() => {
    schema = buildSchemaSync({
      resolvers: [BoxResolver],
      authChecker: ({ context }, roles) => roles.includes((context as BoxContext).role),
      validate: false,
    });
    direct = callFieldResolversAsWritten(schema, [BoxResolver]);
  });

  const run = (source: string, role = "student") =>
    graphql({ schema, source, contextValue: { role, suffix: "1" } satisfies BoxContext });

  it("when a field resolver takes only the record, the context and the info, then it is set as written", () => {
    expect(direct.sort()).toEqual(["Box.label", "Box.path"]);
  });

  it("when such a field is asked for, then it answers from the record, the context and the info, in its order", async () => {
    const res = await run("{ box { label path } }");

    expect(res).toEqual({ data: { box: { label: "crate:1", path: "Box.path@crate" } } });
  });

  it("when a field resolver declares roles, then a caller without them is still refused", async () => {
    const refused = await run("{ box { secret } }");
    const allowed = await run("{ box { secret } }", "admin");

    expect(refused.errors?.[0]?.message).toMatch(/Access denied/);
    expect(allowed.data).toEqual({ box: { secret: "the key of crate" } });
  });

  it("when a field resolver takes an argument or a root of a class, then type-graphql still converts them", async () => {
    const res = await run("{ box { repeated(times: 2) asInstance } }");

    expect(res).toEqual({ data: { box: { repeated: "cratecrate", asInstance: true } } });
  });
});
