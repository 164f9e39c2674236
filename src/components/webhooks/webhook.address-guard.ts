// Which addresses an endpoint may be called at with WEBHOOKS_ALLOW_PRIVATE=false: public unicast ones only. The host
// is resolved at every attempt, every address it resolves to is checked, and the connection goes to an address that
// was checked (the HTTP agent's `lookup` answers with it), so a name that resolves to a public address for the check
// and to a private one for the connection (DNS rebinding) reaches nothing private.
import dns from "node:dns/promises";
import net from "node:net";

/** Ranges never called: loopback, private, link-local, unspecified, shared (CGNAT), multicast and reserved. */
const REFUSED: readonly [string, number, "ipv4" | "ipv6", string][] = [
  ["0.0.0.0", 8, "ipv4", "unspecified"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "private"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.0.0.0", 24, "ipv4", "private"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["198.18.0.0", 15, "ipv4", "private"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["fc00::", 7, "ipv6", "private"],
  ["ff00::", 8, "ipv6", "multicast"],
  ["64:ff9b::", 96, "ipv6", "private"],
  ["2001:db8::", 32, "ipv6", "reserved"],
];

const BLOCKS = REFUSED.map(([address, prefix, family, kind]) => {
  const list = new net.BlockList();
  list.addSubnet(address, prefix, family);
  return { list, family, kind };
});

/** Why `address` may not be called ("loopback", "private", …), or null for a public address. */
export function refusedKind(address: string): string | null {
  let ip = address;
  let family = net.isIP(ip);
  if (family === 0) return "unparsable";
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) {
    ip = mapped[1];
    family = 4;
  }
  for (const block of BLOCKS) {
    if ((block.family === "ipv4") === (family === 4) && block.list.check(ip, block.family)) return block.kind;
  }
  return null;
}

export interface CheckedHost {
  /** The addresses the connection may use (all checked). */
  addresses: { address: string; family: number }[];
}

/** The host's addresses when all are public; else the reason, naming the host and the address (never a secret). */
export async function checkHost(hostname: string): Promise<CheckedHost | { refused: string }> {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch (err) {
      return { refused: `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? "error"})` };
    }
  }
  for (const { address } of addresses) {
    const kind = refusedKind(address);
    if (kind) return { refused: `${host} resolves to ${address}, a ${kind} address (WEBHOOKS_ALLOW_PRIVATE is false)` };
  }
  if (addresses.length === 0) return { refused: `${host} resolves to no address` };
  return { addresses };
}

/** A `lookup` for http(s).request that answers only with the checked addresses. */
export function pinnedLookup(checked: CheckedHost): net.LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    const wanted = checked.addresses.filter((a) => !options.family || a.family === options.family);
    const list = wanted.length > 0 ? wanted : checked.addresses;
    if (options.all) callback(null, list);
    else callback(null, list[0].address, list[0].family);
  }) as unknown as net.LookupFunction;
}
