// npm run token -- --sub alice --roles student,admin [--expires 8h] [--claim company_ids=[1,2] --claim teacher_id=7]
// Prints an HS256 bearer token signed with AUTH_JWT_SECRET (and AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE when set). Each
// --claim name=value adds a claim for row rules (ACCESS_POLICY): the value is read as JSON when it parses (7, [1,2],
// "7", true), else kept as text (alice).
import { parseArgs } from "node:util";
import { mintDevToken, RESERVED_CLAIMS } from "../src/auth/dev-token";
import { parseRole } from "../src/auth/roles";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfigOrExit } from "../src/config";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: "string", default: "dev-user" },
      roles: { type: "string", default: "admin" },
      expires: { type: "string", default: "8h" },
      claim: { type: "string", multiple: true, default: [] },
    },
  });
  const claims = claimsOf(values.claim!);
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
    claims,
  });
  process.stdout.write(`${token}\n`);
}

/** The --claim name=value options as claims; a malformed one, or one the other options set, stops with a line. */
function claimsOf(options: string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const option of options) {
    const at = option.indexOf("=");
    const name = at > 0 ? option.slice(0, at) : "";
    if (!name) fail(`--claim ${JSON.stringify(option)}: write --claim name=value, e.g. --claim company_ids=[1,2]`);
    if ((RESERVED_CLAIMS as readonly string[]).includes(name)) {
      fail(`--claim ${name}: set by the token itself (use --sub, --roles or --expires)`);
    }
    const text = option.slice(at + 1);
    try {
      claims[name] = JSON.parse(text);
    } catch {
      claims[name] = text;
    }
  }
  return claims;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

void main();
