// GET /docs in a real browser with every other host blocked: Swagger UI, served by the service, renders the REST
// facade's operations from the service's own /openapi.json (the screenshot is left in tests/output/docs.png).
import fs from "node:fs";
import path from "node:path";
import { startTestApp, type TestApp } from "../helpers/app";
import { allowOnlyOrigin, launchChromium, OUTPUT_DIR, type Browser } from "./chromium";

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

it("when a person opens /docs with no other host reachable, then every REST operation of /openapi.json is listed", async () => {
  const document = (
    await t.http<{ paths: Record<string, Record<string, { summary: string }>> }>("GET", "/openapi.json")
  ).body;
  const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      route,
      summary: operation.summary,
    })),
  );
  // The original interface's five, and the sixth revision's archive, unarchive and three deletions.
  expect(operations).toHaveLength(10);
  const page = await browser.newPage();
  const elsewhere = await allowOnlyOrigin(page, t.url);
  const loaded: string[] = [];
  page.on("requestfinished", (request) => loaded.push(new URL(request.url()).pathname));

  await page.goto(`${t.url}/docs`);
  await page.locator(".opblock").first().waitFor();

  const shown = await page.locator(".opblock-summary").allInnerTexts();
  expect(shown).toHaveLength(operations.length);
  for (const { method, route, summary } of operations) {
    expect(shown.some((text) => text.includes(method) && text.includes(route) && text.includes(summary))).toBe(true);
  }
  expect(await page.locator(".info .title").innerText()).toMatch(/Project service — REST interface/);
  // Swagger UI reads the document at /docs/json: the same as /openapi.json (both are @fastify/swagger's).
  expect(loaded).toContain("/docs/json");
  expect(elsewhere).toEqual([]);
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(OUTPUT_DIR, "docs.png"), fullPage: true });
  await page.close();
});
