// What a REST route of the facade declares: its operation in the role table, its schemas, and the one service
// call it makes. rest.plugin.ts turns these into Fastify routes (authentication, authorisation, envelope) so each
// routes file stays a list of declarations.
import type { Operation } from "../auth/access-policy";
import type { Actor } from "../auth/actor";
import type { ProjectAccess } from "../components/projects";
import type { z } from "zod";
import type { Services } from "../services";
import type { BodySchema } from "./schemas";

/** A route whose body has the TypeScript type `Body`, taken from its body schema (see restRoute). */
export interface RestRoute<Body = unknown> {
  method: "POST" | "PUT" | "DELETE";
  /** Fastify syntax (":projectId"). */
  url: string;
  operation: Operation;
  summary: string;
  tag: string;
  successStatus: 200 | 201;
  /** The zod shape of the path's one id (e.g. ProjectIdArg): its name and rule give the path parameter's schema. */
  pathArg?: z.ZodObject;
  /**
   * Generated from the operation's zod shape; Ajv checks it before run() (types, required and unknown fields). None
   * for a route that takes no body (a DELETE).
   */
  body?: BodySchema<Body>;
  /** The success envelope's schema (a shared one, named by its $id). */
  response: { $id: string };
  /** Error statuses the service may answer besides 400/401/403/500 (e.g. 404, 409). */
  domainErrors: number[];
  /**
   * The one service call; params are the validated path strings, body the JSON body of the schema's shape, actor the
   * caller, access the caller's row rules for projects (ACCESS_POLICY).
   */
  run(
    services: Services,
    params: Record<string, string>,
    body: Body,
    actor: Actor,
    access: ProjectAccess,
  ): Promise<unknown>;
}

/** Declares a route; `body` in run() gets the type of the body schema's zod shape, so no route takes `any`. */
export const restRoute = <Body>(route: RestRoute<Body>): RestRoute<Body> => route;

/** A path id checked by idParam(): a whole number in digits; the service checks its range (Number() past 2^53 is out of it). */
export const pathId = (value: string): number => Number(value);
