// Bearer tokens for the jwt-mode tests: valid, expired, wrongly signed, and alg "none".
import type { AuthConfig } from "../../src/config";
import { mintDevToken } from "../../src/auth/dev-token";

const TEST_SECRET = "test-secret-of-at-least-thirty-two-bytes!";
const TEST_ISSUER = "https://issuer.test";
const TEST_AUDIENCE = "project-service-tests";

export const JWT_AUTH: AuthConfig = { mode: "jwt", secret: TEST_SECRET, issuer: TEST_ISSUER, audience: TEST_AUDIENCE };

export function token(
  roles: string[],
  options: {
    sub?: string;
    expiresIn?: string | number;
    secret?: string;
    issuer?: string;
    audience?: string;
    /** More claims (row rules: company_ids, teacher_id …). */
    claims?: Record<string, unknown>;
  } = {},
) {
  return mintDevToken({
    secret: options.secret ?? TEST_SECRET,
    sub: options.sub ?? "user-1",
    roles,
    expiresIn: options.expiresIn ?? "1h",
    issuer: options.issuer ?? TEST_ISSUER,
    audience: options.audience ?? TEST_AUDIENCE,
    claims: options.claims,
  });
}

export const expiredToken = (roles: string[]) => token(roles, { expiresIn: -60 });
export const wronglySignedToken = (roles: string[]) =>
  token(roles, { secret: "another-secret-of-at-least-thirty-two-bytes" });

/** An unsigned token (alg "none") carrying otherwise valid claims. */
export function unsignedToken(roles: string[]): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  return `${encode({ alg: "none", typ: "JWT" })}.${encode({ sub: "user-1", roles, iat: now, exp: now + 3600, iss: TEST_ISSUER, aud: TEST_AUDIENCE })}.`;
}

/** Headers for a jwt-mode request acting as `role` with a token granting `roles` (default: just that role). */
export async function bearer(
  role: string | undefined,
  roles: string[] = role ? [role] : [],
): Promise<Record<string, string>> {
  const headers: Record<string, string> = { authorization: `Bearer ${await token(roles)}` };
  if (role) headers["x-user-role"] = role;
  return headers;
}
