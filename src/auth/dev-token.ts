// Mints HS256 bearer tokens for development and tests (scripts/mint-token.ts, tests/helpers/tokens.ts).
import { SignJWT } from "jose";
import type { Role } from "./roles";

export interface DevTokenOptions {
  secret: string;
  sub: string;
  roles: Role[] | string[];
  /** Lifetime, e.g. "1h"; a negative number of seconds makes an already expired token (for tests). */
  expiresIn?: string | number;
  issuer?: string;
  audience?: string;
  /** More claims for row rules (ACCESS_POLICY), e.g. { company_ids: [1, 2] }; sub, roles and the times are set above. */
  claims?: Record<string, unknown>;
}

/** Claims the options above set: --claim may not give them. */
export const RESERVED_CLAIMS = ["sub", "roles", "iat", "exp", "nbf", "iss", "aud", "jti"] as const;

export async function mintDevToken(options: DevTokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ ...options.claims, roles: options.roles })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.sub)
    .setIssuedAt(now)
    .setExpirationTime(typeof options.expiresIn === "number" ? now + options.expiresIn : (options.expiresIn ?? "1h"));
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return jwt.sign(new TextEncoder().encode(options.secret));
}
