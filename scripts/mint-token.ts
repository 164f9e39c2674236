// npm run token -- --sub alice --roles student,admin [--expires 8h]
// Prints an HS256 bearer token signed with AUTH_JWT_SECRET (and AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE when set).
import { parseArgs } from "node:util";
import { mintDevToken } from "../src/auth/dev-token";
import { parseRole } from "../src/auth/roles";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfigOrExit } from "../src/config";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: "string", default: "dev-user" },
      roles: { type: "string", default: "admin" },
      expires: { type: "string", default: "8h" },
    },
  });
  // The service's own configuration (validated the same way): the token is for that service.
  const { auth } = loadConfigOrExit({ statusWorkflow: parseStatusWorkflow });
  if (auth.mode !== "jwt" || !auth.secret) {
    process.stderr.write("Set AUTH_JWT_SECRET (at least 32 bytes) to the secret the service uses\n");
    process.exit(1);
  }
  const roles = values.roles!.split(",").map((r) => r.trim());
  const unknown = roles.filter((r) => !parseRole(r));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown role(s): ${unknown.join(", ")}; use student, teacher, admin\n`);
    process.exit(1);
  }
  const token = await mintDevToken({
    secret: auth.secret,
    sub: values.sub!,
    roles,
    expiresIn: values.expires,
    issuer: auth.issuer,
    audience: auth.audience,
  });
  process.stdout.write(`${token}\n`);
}

void main();
