// PostGraphile 5 for npm run bench:peer (bench/peer.ts starts it; nothing else runs it): the amber preset in
// production mode (GRAPHILE_ENV=production and NODE_ENV=production: no GraphiQL, no watch mode, no plan explanations)
// over DATABASE_URL's public schema, on Node's own HTTP server at 127.0.0.1 and a free port. It prints
// "Ready: http://127.0.0.1:<port>" once it answers, and stops on SIGTERM.
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ connectionString: process.env.DATABASE_URL, schemas: ["public"] })],
  grafserv: { graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
serv.addTo(server).catch((err) => {
  console.error(err);
  process.exit(1);
});
// The schema is built before the first request, so no measured request pays for it.
await pgl.getSchemaResult();
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`Ready: http://127.0.0.1:${address.port}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  pgl.release().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
