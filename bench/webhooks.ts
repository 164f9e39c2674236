// npm run bench:webhooks: delivery lag of webhooks on an idle service, from a change's commit to its first attempt
// reaching the receiver. Starts this tree's service (dist/) on a fresh embedded FerretDB with WEBHOOKS naming one
// endpoint, a receiver on 127.0.0.1 that verifies every request with the standardwebhooks library, then makes
// BENCH_WEBHOOK_CHANGES changes one at a time (a creation, then status changes), each after the previous one's
// delivery arrived. The lag of a change is the receiver's arrival time minus the change's commit time (its `at`, the
// same clock). Prints p50, p90, p99 and max. No pass/fail; the goal is p50 <= 200 ms.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { z } from "zod";
import { parseEnv, wholeNumber } from "../src/shared/environment";
import { freePort } from "./free-port";
import { startServiceProcess } from "./service-process";

const ENV = parseEnv(z.object({ BENCH_WEBHOOK_CHANGES: wholeNumber(100, 2, 100_000) }), process.env);
const ROOT = path.resolve(__dirname, "../..");
const HEADERS = { "content-type": "application/json", "x-user-role": "admin" };

interface Body {
  data: { change: { at: string; revision: number } };
}

async function main(): Promise<void> {
  const secret = `whsec_${crypto.randomBytes(32).toString("base64")}`;
  const verifier = new Webhook(secret);
  let arrived: ((body: Body, at: number) => void) | undefined;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const body = verifier.verify(Buffer.concat(chunks).toString("utf8"), req.headers as Record<string, string>);
      res.writeHead(204).end();
      arrived?.(body as Body, at);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-webhooks-"));
  const file = path.join(dir, "webhooks.json");
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  fs.writeFileSync(file, JSON.stringify({ endpoints: [{ id: "bench", url, secret }] }));
  const service = await startServiceProcess("service", ROOT, await freePort(), path.join(dir, "data"), 300_000, {
    WEBHOOKS: file,
  });
  try {
    const lags: number[] = [];
    let projectId = 0;
    for (let i = 0; i < ENV.BENCH_WEBHOOK_CHANGES; i++) {
      const delivered = new Promise<number>((resolve) => {
        arrived = (body, at) => resolve(at - Date.parse(body.data.change.at));
      });
      const response =
        i === 0
          ? await fetch(`${service.url}/projects`, {
              method: "POST",
              headers: HEADERS,
              body: JSON.stringify({
                project_name: `Bench ${Date.now()}`,
                project_desc: "webhook lag",
                company_id: 1,
                project_status: "planned",
                start_date: "2025-01-01",
                end_date: "2025-12-31",
              }),
            })
          : await fetch(`${service.url}/projects/${projectId}/updateStatus`, {
              method: "PUT",
              headers: HEADERS,
              body: JSON.stringify({ project_status: `s${i}` }),
            });
      const answer = (await response.json()) as { data: { project_id: number } };
      if (!response.ok) throw new Error(`change ${i} failed: ${JSON.stringify(answer)}`);
      projectId = answer.data.project_id;
      lags.push(await delivered);
    }
    lags.sort((a, b) => a - b);
    const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))];
    console.log(
      `webhook delivery lag over ${lags.length} changes, one at a time (commit to the receiver's arrival): ` +
        `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${lags[lags.length - 1]} ms; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
    );
  } finally {
    service.process.kill("SIGTERM");
    await new Promise((resolve) => service.process.once("exit", resolve));
    receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
