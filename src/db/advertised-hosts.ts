// The trap of a replica set of one behind another address. Given a seed list, a driver asks the server for the set's
// members (hello's `hosts`) and from then on connects to the members as they advertise themselves, never to the seed
// again (MongoDB's server discovery specification). Reached through a proxy, a port forward or a Kubernetes Service
// whose pod address changes, the service keeps working until the member restarts at another address: then the driver
// keeps trying the old one and the service never recovers, though the seed address would answer. directConnection=true
// (or stable advertised hostnames, as a StatefulSet gives) avoids it; this module says so at start, in one line.
import type { mongo } from "mongoose";

const DEFAULT_PORT = 27017;

/** A host as the driver compares them: lower case, with its port. */
function normalized(host: string): string {
  const lower = host.toLowerCase();
  // "host:port", "[v6]:port" or a socket path keep what they say; a bare name gets the default port.
  return /:\d+$/.test(lower) || lower.startsWith("/") || lower.endsWith(".sock") ? lower : `${lower}:${DEFAULT_PORT}`;
}

/**
 * The warning for a replica set of one that the URI reaches at an address its member does not advertise, without
 * directConnection; undefined when there is nothing to warn of (a URI naming the member, directConnection, a larger
 * set, a sharded cluster, an SRV or load-balanced URI).
 */
export function unadvertisedAddressWarning(
  hello: Record<string, unknown>,
  options: Pick<mongo.MongoOptions, "hosts" | "directConnection" | "srvHost" | "loadBalanced">,
): string | undefined {
  if (options.directConnection || options.srvHost || options.loadBalanced || typeof hello.setName !== "string") {
    return undefined;
  }
  const members = ["hosts", "passives", "arbiters"].flatMap((field) =>
    Array.isArray(hello[field]) ? (hello[field] as unknown[]).map(String) : [],
  );
  if (members.length !== 1) return undefined;
  const advertised = new Set(members.map(normalized));
  const given = options.hosts.map((host) => host.toString());
  if (given.some((host) => advertised.has(normalized(host)))) return undefined;
  return (
    `MONGODB_URI names ${given.join(",")}, but the replica set ${hello.setName} advertises its only member as ` +
    `${members[0]}: the driver now connects to ${members[0]}, and once that member restarts at another address ` +
    `(behind a proxy, a port forward or a Kubernetes Service) the service will not find it again until the service ` +
    `itself restarts. Add directConnection=true to MONGODB_URI, or give the member a stable advertised hostname ` +
    `(docs/operations.md)`
  );
}
