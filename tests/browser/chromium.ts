// A real browser for the browser tests: Debian's Chromium (installed by .ci/run when missing) driven by
// playwright-core, headless, with a fresh profile, and a tiny HTTP server that plays a frontend on another origin.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

const CHROMIUM_PATH = "/usr/bin/chromium";

/** Where tests leave what a person may want to look at (screenshots); git-ignored. */
export const OUTPUT_DIR = path.resolve(__dirname, "../output");

export interface Browser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (.ci/run does it when missing)`,
    );
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chromium-profile-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
    ],
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Blocks every request of the page that does not go to `allowedOrigin` and returns the list of those attempted,
 * so a test can assert the page needed no other host.
 */
export async function allowOnlyOrigin(page: Page, allowedOrigin: string): Promise<string[]> {
  const elsewhere: string[] = [];
  await page.route("**/*", async (route) => {
    const url = route.request().url();
    if (new URL(url).origin === allowedOrigin || url.startsWith("data:")) {
      await route.continue();
    } else {
      elsewhere.push(url);
      await route.abort("blockedbyclient");
    }
  });
  return elsewhere;
}

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/** Serves one HTML page at / from its own port: a frontend on an origin other than the API's. */
export async function servePage(html: string): Promise<PageServer> {
  const server = http.createServer((request, response) => {
    if (request.url === "/" || request.url?.startsWith("/?")) {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
