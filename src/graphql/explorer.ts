// What a browser gets at GET /graphql (Accept: text/html): GraphiQL served from the service's own files (EXPLORER=
// graphiql, the default, works offline; subscriptions run over the WebSocket with graphql-ws's client, served too), Apollo Sandbox from Apollo's CDN (EXPLORER=sandbox), or nothing in
// production. Apollo decides when to answer with a landing page; this module supplies the page and its assets.
import type { ApolloServerPlugin } from "@apollo/server";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { ApolloServerPluginLandingPageLocalDefault } from "@apollo/server/plugin/landingPage/default";
import type { FastifyPluginAsync } from "fastify";
import type { Config } from "../config";
import { packageVersion, servePackageFiles, type PackageFile } from "../http/package-files";

export type ExplorerConfig = Pick<Config, "production" | "explorer">;

/** The headers editor starts with a role, since every operation needs one (contract: roles). */
const GRAPHIQL_DEFAULT_HEADERS = { "X-User-Role": "student" };

const GRAPHIQL_DEFAULT_QUERY = `# Set the acting role in the Headers tab below:
# student, teacher or admin. In jwt mode add
# "Authorization": "Bearer <token>" (npm run token).
query Projects {
  projects(limit: 5) {
    total
    items {
      project_id
      project_name
      project_status
      teacher { teacher_name }
    }
  }
}
`;

/**
 * GraphiQL 4 is the last release with a prebuilt UMD bundle (5.x ships ESM for bundlers only); the UMD bundle
 * expects React 18's UMD builds as globals (React 19 ships none). URLs carry the versions, so caches stay right.
 */
function graphiqlFiles(): PackageFile[] {
  const graphiql = packageVersion("graphiql");
  const react = packageVersion("react");
  const reactDom = packageVersion("react-dom");
  const graphqlWs = packageVersion("graphql-ws");
  return [
    {
      url: `/graphiql/react-${react}/react.production.min.js`,
      packageName: "react",
      file: "umd/react.production.min.js",
      contentType: "application/javascript; charset=utf-8",
    },
    {
      url: `/graphiql/react-dom-${reactDom}/react-dom.production.min.js`,
      packageName: "react-dom",
      file: "umd/react-dom.production.min.js",
      contentType: "application/javascript; charset=utf-8",
    },
    {
      url: `/graphiql/${graphiql}/graphiql.min.js`,
      packageName: "graphiql",
      file: "graphiql.min.js",
      contentType: "application/javascript; charset=utf-8",
    },
    {
      url: `/graphiql/${graphiql}/graphiql.min.css`,
      packageName: "graphiql",
      file: "graphiql.min.css",
      contentType: "text/css; charset=utf-8",
    },
    {
      url: `/graphiql/graphql-ws-${graphqlWs}/graphql-ws.min.js`,
      packageName: "graphql-ws",
      file: "umd/graphql-ws.min.js",
      contentType: "application/javascript; charset=utf-8",
    },
  ];
}

/** JSON safe to place inside an inline <script>. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** Asset URLs are relative to the page (/graphql), so the page also works behind a path prefix. */
function graphiqlHtml(files: PackageFile[]): string {
  const [react, reactDom, script, css, graphqlWs] = files.map((file) => file.url.slice(1));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · Project service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${css}">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${react}"></script>
<script src="${reactDom}"></script>
<script src="${script}"></script>
<script src="${graphqlWs}"></script>
<script>
  // The page is served at the GraphQL endpoint itself; subscriptions go to the same path over WebSocket.
  var endpoint = location.origin + location.pathname;
  var headers = {};
  var wsClient = graphqlWs.createClient({
    url: endpoint.replace(/^http/, "ws"),
    lazy: true,
    // connection_init carries the Headers tab (X-User-Role, Authorization) as the service reads it: lower-case names.
    connectionParams: function () {
      var params = {};
      Object.keys(headers).forEach(function (name) { params[name.toLowerCase()] = headers[name]; });
      return params;
    },
  });
  var httpAndWs = GraphiQL.createFetcher({ url: endpoint, wsClient: wsClient });
  var fetcher = function (params, options) {
    headers = (options && options.headers) || {};
    return httpAndWs(params, options);
  };
  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: ${scriptJson(GRAPHIQL_DEFAULT_QUERY)},
      defaultHeaders: ${scriptJson(JSON.stringify(GRAPHIQL_DEFAULT_HEADERS, null, 2))},
      defaultEditorToolsVisibility: "headers",
    }),
  );
</script>
</body>
</html>
`;
}

function explorerOf(config: ExplorerConfig): "graphiql" | "sandbox" | "none" {
  return config.production ? "none" : config.explorer;
}

/** Apollo's landing-page plugin for the configured explorer (production: disabled, so no page at all). */
export function explorerLandingPage(config: ExplorerConfig): ApolloServerPlugin {
  switch (explorerOf(config)) {
    case "none":
      return ApolloServerPluginLandingPageDisabled();
    case "sandbox":
      return ApolloServerPluginLandingPageLocalDefault();
    case "graphiql": {
      const html = graphiqlHtml(graphiqlFiles());
      return {
        async serverWillStart() {
          return {
            async renderLandingPage() {
              return { html };
            },
          };
        },
      };
    }
  }
}

/** The files the GraphiQL page loads, served by the app itself (only when GraphiQL is the explorer). */
export const explorerAssets: FastifyPluginAsync<ExplorerConfig> = async (app, config) => {
  if (explorerOf(config) === "graphiql") servePackageFiles(app, graphiqlFiles());
};
