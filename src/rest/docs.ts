// GET /docs: the REST facade's OpenAPI document (GET /openapi.json, generated in openapi.ts) in Swagger UI, served
// from the swagger-ui-dist package by the service itself (no CDN; the validator badge, which calls an outside
// host, is off). The page reads the same document clients get, so there is nothing to keep in step.
import type { FastifyPluginAsync } from "fastify";
import { packageVersion, servePackageFiles, type PackageFile } from "../http/package-files";

function swaggerUiFiles(): PackageFile[] {
  const prefix = `/docs/swagger-ui-${packageVersion("swagger-ui-dist")}`;
  return [
    {
      url: `${prefix}/swagger-ui-bundle.js`,
      packageName: "swagger-ui-dist",
      file: "swagger-ui-bundle.js",
      contentType: "application/javascript; charset=utf-8",
    },
    {
      url: `${prefix}/swagger-ui.css`,
      packageName: "swagger-ui-dist",
      file: "swagger-ui.css",
      contentType: "text/css; charset=utf-8",
    },
  ];
}

/** URLs are relative to the page (/docs), so it also works behind a path prefix. */
function docsHtml(files: PackageFile[]): string {
  const [script, css] = files.map((file) => file.url.slice(1));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST interface · Project service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${css}">
</head>
<body>
<div id="swagger-ui">Loading the API documentation…</div>
<script src="${script}"></script>
<script>
  window.ui = SwaggerUIBundle({
    url: new URL("openapi.json", location.href).href,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
  });
</script>
</body>
</html>
`;
}

export const docsPlugin: FastifyPluginAsync = async (app) => {
  const files = swaggerUiFiles();
  servePackageFiles(app, files);
  const html = docsHtml(files);
  app.get("/docs", async (_request, reply) => reply.type("text/html; charset=utf-8").send(html));
};
