// GraphQL entry points of global object identification (node.ts): Query.node and Query.nodes, and the `id` of each
// node type. Decode, call one function, return.
import { Arg, Authorized, Ctx, ID, Query, Resolver } from "type-graphql";
import { rolesFor } from "../auth/access-policy";
import { Project } from "../components/projects/graphql";
import { Student } from "../components/students/graphql";
import { Teacher } from "../components/teachers/graphql";
import type { Context } from "./context";
import { loadNode, loadNodes, Node, NodeIdResolver, NODES_MAX_IDS } from "./node";
import { connectionCost } from "./query-cost";

export const ProjectIdResolver = NodeIdResolver(Project, "Project");
export const TeacherIdResolver = NodeIdResolver(Teacher, "Teacher");
export const StudentIdResolver = NodeIdResolver(Student, "Student");

@Resolver()
export class NodeResolver {
  @Authorized(rolesFor("node"))
  @Query(() => Node, {
    nullable: true,
    description:
      "The object with this global id; null when the id is unknown or malformed, or names an object the caller may not read",
  })
  node(
    @Arg("id", () => ID, { description: "A global id (the id field of any Node)" }) id: string,
    @Ctx() ctx: Context,
  ) {
    return loadNode(ctx, id);
  }

  @Authorized(rolesFor("nodes"))
  @Query(() => [Node], {
    nullable: "items",
    complexity: connectionCost,
    description: `The objects with these global ids, in order; null for each that node(id) would answer null. At most ${NODES_MAX_IDS} ids`,
  })
  nodes(
    @Arg("ids", () => [ID], { description: `Global ids, at most ${NODES_MAX_IDS}` }) ids: string[],
    @Ctx() ctx: Context,
  ) {
    return loadNodes(ctx, ids);
  }
}
