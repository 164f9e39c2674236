// npm run token -- --sub alice --roles student,admin [--expires 8h]
// Prints an HS256 bearer token signed with AUTH_JWT_SECRET (and AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE when set).
import { parseArgs } from "node:util";
import { mintDevToken } from "../src/auth/dev-token";
import { parseRole } from "../src/auth/roles";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: "string", default: "dev-user" },
      roles: { type: "string", default: "admin" },
      expires: { type: "string", default: "8h" },
    },
  });
  const secret = process.env.AUTH_JWT_SECRET;
  if (!secret || Buffer.byteLength(secret) < 32) {
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
    secret,
    sub: values.sub!,
    roles,
    expiresIn: values.expires,
    issuer: process.env.AUTH_JWT_ISSUER,
    audience: process.env.AUTH_JWT_AUDIENCE,
  });
  process.stdout.write(`${token}\n`);
}

void main();
