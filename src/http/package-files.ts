// Serves browser bundles shipped inside installed npm packages (GraphiQL, React, graphql-ws's client) at fixed URLs,
// so the explorer loads nothing from another host and works offline. Paths are resolved when the routes are
// registered (a missing package fails the start-up, not a browser later); each file is read once, on first request,
// and kept in memory for the life of the process.
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";

export interface PackageFile {
  /** The URL it is served at; it carries the package version, so browsers may cache it for good. */
  url: string;
  /** npm package name. */
  packageName: string;
  /** Path inside the package. */
  file: string;
  contentType: string;
}

const contents = new Map<string, Buffer>();

function packageDir(packageName: string): string {
  return path.dirname(require.resolve(`${packageName}/package.json`));
}

export function packageVersion(packageName: string): string {
  return (
    JSON.parse(fs.readFileSync(path.join(packageDir(packageName), "package.json"), "utf8")) as { version: string }
  ).version;
}

export function servePackageFiles(app: FastifyInstance, files: readonly PackageFile[]): void {
  for (const file of files) {
    const absolute = path.join(packageDir(file.packageName), file.file);
    fs.accessSync(absolute, fs.constants.R_OK);
    app.get(file.url, async (_request, reply) => {
      let body = contents.get(absolute);
      if (!body) {
        body = await fs.promises.readFile(absolute);
        contents.set(absolute, body);
      }
      return reply.header("cache-control", "public, max-age=31536000, immutable").type(file.contentType).send(body);
    });
  }
}
