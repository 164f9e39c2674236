// When MONGODB_URI reaches a replica set of one through another address (a TCP proxy here, as a port forward or a
// Kubernetes Service would be), then the service warns at start, in one line, that it will not find the member again
// once it restarts elsewhere, and how to fix it; with directConnection=true it does not warn, and a FerretDB killed and
// started again on a new port behind the same proxy address is used again, with every acknowledged write stored. The
// FerretDB here listens on a loopback port (startFerretDb's `loopback`), so the member advertises 127.0.0.1:<its port>,
// never the proxy's. Without directConnection the service stays on the member's old address: the trap, shown.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded-server";
import { unadvertisedAddressWarning } from "../../src/db/advertised-hosts";
import { graphqlAsAdmin, startServiceProcess, until, type ServiceProcess } from "../helpers/service-process";

const ON_FERRETDB = (process.env.TEST_DATABASE_KIND ?? "ferretdb") === "ferretdb";
const portOf = (uri: string) => Number(new URL(uri).port);
/** A short DB_TIMEOUT_MS: requests to a server that is gone answer sooner. */
const LIMITS = { DB_TIMEOUT_MS: "1500" };

/** A TCP proxy on 127.0.0.1 to a port that may change; connections made before a change keep their old target. */
async function startProxy(target: number) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(proxy.target, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy = {
    target,
    port: (server.address() as net.AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}

const createTeacher = (url: string, name: string) =>
  graphqlAsAdmin<{ createTeacher: { success: boolean; data: { teacher_id: number } | null } }>(
    url,
    `mutation { createTeacher(input: { teacher_name: "${name}" }) { success data { teacher_id } } }`,
  ).then(({ body }) => body.data!.createTeacher);

(ON_FERRETDB ? describe : describe.skip)("a replica set of one behind a proxy", () => {
  let dataDir: string;
  let ferretdb: EmbeddedDatabase;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  /** Without directConnection, and with it. */
  let trapped: ServiceProcess | undefined;
  let direct: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-proxied-"));
    ferretdb = await startFerretDb(dataDir, () => undefined, { loopback: true });
    proxy = await startProxy(portOf(ferretdb.uri));
  });
  afterAll(async () => {
    await Promise.all([trapped?.stop(), direct?.stop()]);
    await proxy?.close();
    await ferretdb?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const warnings = (s: ServiceProcess) => s.log.filter((e) => e.level === 40 && /directConnection/.test(e.msg));

  it("when MONGODB_URI names the proxy without directConnection, then the service warns in one line what a restart will do and how to fix it", async () => {
    trapped = await startServiceProcess({ MONGODB_URI: `mongodb://127.0.0.1:${proxy.port}/proxied`, ...LIMITS });

    expect(warnings(trapped).map((e) => e.msg)).toEqual([
      `MONGODB_URI names 127.0.0.1:${proxy.port}, but the replica set rs0 advertises its only member as ` +
        `127.0.0.1:${portOf(ferretdb.uri)}: the driver now connects to 127.0.0.1:${portOf(ferretdb.uri)}, and once ` +
        "that member restarts at another address (behind a proxy, a port forward or a Kubernetes Service) the " +
        "service will not find it again until the service itself restarts. Add directConnection=true to " +
        "MONGODB_URI, or give the member a stable advertised hostname (docs/operations.md)",
    ]);
  });

  it("when MONGODB_URI has directConnection=true and FerretDB is killed and started on a new port behind the proxy, then the service answers again and keeps every acknowledged write", async () => {
    direct = await startServiceProcess({
      MONGODB_URI: `mongodb://127.0.0.1:${proxy.port}/proxied?directConnection=true`,
      ...LIMITS,
    });
    const service = direct;
    expect(warnings(service)).toEqual([]);
    const acknowledged: number[] = [];
    for (let i = 0; i < 20; i++) {
      const answer = await createTeacher(service.url, `Before ${i}`);
      expect(answer.success).toBe(true);
      acknowledged.push(answer.data!.teacher_id);
    }

    const oldPort = portOf(ferretdb.uri);
    process.kill(ferretdb.pid!, "SIGKILL");
    await ferretdb.exited;
    // While it is gone: the documented answer, after DB_TIMEOUT_MS.
    expect(await createTeacher(service.url, "Meanwhile")).toMatchObject({ success: false, data: null });
    ferretdb = await ferretdb.restart();
    expect(portOf(ferretdb.uri)).not.toBe(oldPort);
    proxy.target = portOf(ferretdb.uri);
    const movedAt = performance.now();

    let first: Awaited<ReturnType<typeof createTeacher>> | undefined;
    let failures = 0;
    await until(async () => {
      first = await createTeacher(service!.url, "After");
      if (!first.success) failures++;
      return first.success;
    });
    const recoveredMs = performance.now() - movedAt;
    acknowledged.push(first!.data!.teacher_id);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);

    const { body } = await graphqlAsAdmin<{ teachers: { items: { teacher_id: number }[] } }>(
      service.url,
      "{ teachers(limit: 100) { items { teacher_id } } }",
    );
    expect(body.data!.teachers.items.map((t) => t.teacher_id)).toEqual(acknowledged);

    // The service without directConnection still knocks at the member's old port, though the proxy answers.
    const answer = await graphqlAsAdmin<{ createTeacher: { success: boolean; code: string } }>(
      trapped!.url,
      'mutation { createTeacher(input: { teacher_name: "Trapped" }) { success code } }',
    );
    expect(answer.body.data!.createTeacher).toEqual({ success: false, code: "INTERNAL_SERVER_ERROR" });
    expect((await fetch(`${trapped!.url}/readyz`)).status).toBe(503);

    process.stderr.write(
      `[proxied] directConnection=true: answering again ${Math.round(recoveredMs)} ms after FerretDB came back on a new port (${failures} failed requests); ${acknowledged.length} of ${acknowledged.length} acknowledged writes stored\n`,
    );
  });
});

describe("the advertised-address warning", () => {
  const hello = (hosts: string[]) => ({ setName: "rs0", hosts, isWritablePrimary: true });
  const options = (hosts: string[], more: { directConnection?: boolean } = {}) => ({
    hosts: hosts.map((host) => ({ toString: () => host })) as never,
    directConnection: more.directConnection ?? false,
    srvHost: undefined,
    loadBalanced: false,
  });

  it.each([
    ["the URI names the member", hello(["db.example.org:27017"]), options(["db.example.org:27017"])],
    [
      "the URI names the member without its port, in another case",
      hello(["db.example.org:27017"]),
      options(["DB.example.org"]),
    ],
    ["directConnection is set", hello(["10.0.0.7:27017"]), options(["proxy:27017"], { directConnection: true })],
    ["the set has three members", hello(["a:27017", "b:27017", "c:27017"]), options(["proxy:27017"])],
    ["the server is no replica set (a mongos)", { msg: "isdbgrid" }, options(["proxy:27017"])],
  ])("when %s, then there is no warning", (_case, answer, given) => {
    expect(unadvertisedAddressWarning(answer, given)).toBeUndefined();
  });

  it("when a set of one is reached at another address, then the warning names both and the fix", () => {
    expect(unadvertisedAddressWarning(hello(["10.0.0.7:27017"]), options(["localhost:27018"]))).toMatch(
      /^MONGODB_URI names localhost:27018, but the replica set rs0 advertises its only member as 10\.0\.0\.7:27017: .*Add directConnection=true to MONGODB_URI, or give the member a stable advertised hostname/,
    );
  });
});
