// What the database claims (its version from buildInfo, its topology from hello, its parameters from getParameter),
// and whether it meets a test's runOnRequirements; when it does not, the one-line reason the test is skipped for.
import type { MongoClient } from "mongodb";
import { valuesEqual, describe } from "./matcher";
import { compareVersions, versionParts, type Doc, type RunOnRequirement } from "./unified-format";

export type Topology = "single" | "replicaset" | "sharded" | "load-balanced";

export interface ServerFacts {
  /** buildInfo's version, e.g. "7.0.42". */
  version: string;
  /** The three numbers compared with minServerVersion and maxServerVersion (buildInfo's versionArray). */
  versionArray: [number, number, number];
  topology: Topology;
  /** Whether the connection string carries credentials (for `auth`). */
  auth: boolean;
}

/** Two round trips: buildInfo and hello. */
export async function readServerFacts(client: MongoClient, uri: string): Promise<ServerFacts> {
  const admin = client.db("admin");
  const [buildInfo, hello] = await Promise.all([admin.command({ buildInfo: 1 }), admin.command({ hello: 1 })]);
  const version = String(buildInfo.version ?? "0");
  const array = Array.isArray(buildInfo.versionArray)
    ? (buildInfo.versionArray.slice(0, 3).map(Number) as [number, number, number])
    : versionParts(version);
  let topology: Topology = "single";
  if (typeof hello.setName === "string") topology = "replicaset";
  else if (hello.msg === "isdbgrid") topology = "sharded";
  return { version, versionArray: array, topology, auth: /^mongodb(\+srv)?:\/\/[^/@]+@/.test(uri) };
}

/** Decides runOnRequirements against one server, reading each server parameter once. */
export class RequirementChecker {
  private readonly parameters = new Map<string, Promise<{ value?: unknown; error?: string }>>();

  constructor(
    readonly facts: ServerFacts,
    private readonly client: MongoClient,
  ) {}

  /** Undefined when one of the requirements is met (or there are none); else why none is. */
  async unmet(requirements: RunOnRequirement[] | undefined): Promise<string | undefined> {
    if (!requirements || requirements.length === 0) return undefined;
    const reasons: string[] = [];
    for (const requirement of requirements) {
      const reason = await this.unmetOne(requirement);
      if (reason === undefined) return undefined;
      if (!reasons.includes(reason)) reasons.push(reason);
    }
    return reasons.length === 1 ? reasons[0] : `none of its requirements is met: ${reasons.join("; ")}`;
  }

  private async unmetOne(requirement: RunOnRequirement): Promise<string | undefined> {
    const { facts } = this;
    const reasons: string[] = [];
    const known = new Set([
      "minServerVersion",
      "maxServerVersion",
      "topologies",
      "serverless",
      "serverParameters",
      "auth",
      "authMechanism",
      "csfle",
    ]);
    const unknown = Object.keys(requirement).filter((key) => !known.has(key));
    if (unknown.length > 0) return `the requirement ${unknown.join(", ")} is not supported by this runner`;
    if (
      requirement.minServerVersion !== undefined &&
      compareVersions(facts.versionArray, versionParts(requirement.minServerVersion)) < 0
    ) {
      reasons.push(`server version >= ${requirement.minServerVersion}`);
    }
    if (
      requirement.maxServerVersion !== undefined &&
      compareVersions(facts.versionArray, versionParts(requirement.maxServerVersion)) > 0
    ) {
      reasons.push(`server version <= ${requirement.maxServerVersion}`);
    }
    if (reasons.length > 0) reasons[reasons.length - 1] += ` (the database claims ${facts.version})`;
    if (requirement.topologies && !requirement.topologies.some((topology) => this.topologyMatches(topology))) {
      reasons.push(`a ${requirement.topologies.join(" or ")} topology (the database is ${facts.topology})`);
    }
    if (requirement.serverless === "require") reasons.push("Atlas Serverless");
    if (requirement.auth === true && !facts.auth) reasons.push("authentication");
    if (requirement.auth === false && facts.auth) reasons.push("no authentication");
    if (requirement.authMechanism !== undefined)
      reasons.push(`the authentication mechanism ${requirement.authMechanism}`);
    if (requirement.csfle !== undefined && requirement.csfle !== false)
      reasons.push("client-side field level encryption");
    for (const [name, expected] of Object.entries(requirement.serverParameters ?? {})) {
      const { value, error } = await this.parameter(name);
      if (error !== undefined)
        reasons.push(`the server parameter ${name} = ${describe(expected)} (cannot read it: ${error})`);
      else if (!valuesEqual(expected, value)) {
        reasons.push(`the server parameter ${name} = ${describe(expected)} (the database has ${describe(value)})`);
      }
    }
    return reasons.length > 0 ? `needs ${reasons.join(", ")}` : undefined;
  }

  private topologyMatches(topology: string): boolean {
    if (topology === "sharded-replicaset") return this.facts.topology === "sharded";
    return topology === this.facts.topology;
  }

  private parameter(name: string): Promise<{ value?: unknown; error?: string }> {
    let answer = this.parameters.get(name);
    if (!answer) {
      answer = this.client
        .db("admin")
        .command({ getParameter: 1, [name]: 1 })
        .then((reply: Doc) => (name in reply ? { value: reply[name] } : { error: "not in getParameter's answer" }))
        .catch((err: Error) => ({ error: err.message }));
      this.parameters.set(name, answer);
    }
    return answer;
  }
}
