// Authentication of a request from its headers, in the two modes of the contract:
//   jwt    — Authorization: Bearer <token> (HS256 secret or JWKS), exp required, issuer/audience when configured;
//            the X-User-Role header, when sent, must be one of the token's roles.
//   header — development only: X-User-Role is trusted as sent, X-User-Id optionally names the caller; with row rules
//            (ACCESS_POLICY), X-User-Claims holds the claims a token would carry, as a JSON object.
import type { IncomingHttpHeaders } from "node:http";
import type { JWTPayload } from "jose";
import type { AuthConfig } from "../config";
import type { Caller } from "./caller";
import { parseRole, ROLES, type Role } from "./roles";

export interface Authenticator {
  mode: AuthConfig["mode"];
  authenticate(headers: IncomingHttpHeaders): Promise<Caller>;
}

export interface AuthenticatorOptions {
  /**
   * Header mode reads X-User-Claims (row rules need claims: ACCESS_POLICY is set). Without it the header is ignored,
   * as before row rules existed.
   */
  claimsHeader?: boolean;
}

/** The most bytes of X-User-Claims read (a token's claims are far fewer). */
const MAX_CLAIMS_HEADER_BYTES = 8192;

/**
 * X-User-Claims: a JSON object of claims, as a token's payload holds them; `sub` is X-User-Id's. Undefined when the
 * header is absent; an error reason when it is not such an object.
 */
function claimsHeader(headers: IncomingHttpHeaders): { claims?: Record<string, unknown>; error?: string } {
  const raw = header(headers, "x-user-claims");
  if (raw === undefined || raw.trim() === "") return {};
  const refuse = (why: string) => ({ error: `X-User-Claims ${why}` });
  if (Buffer.byteLength(raw) > MAX_CLAIMS_HEADER_BYTES)
    return refuse(`is longer than ${MAX_CLAIMS_HEADER_BYTES} bytes`);
  let claims: unknown;
  try {
    claims = JSON.parse(raw);
  } catch {
    return refuse('must be a JSON object of claims, e.g. {"company_ids":[1,2]}');
  }
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) {
    return refuse('must be a JSON object of claims, e.g. {"company_ids":[1,2]}');
  }
  if (Object.hasOwn(claims, "sub")) return refuse("must not hold sub: X-User-Id names the caller");
  return { claims: claims as Record<string, unknown> };
}

const ROLE_LIST = ROLES.join(", ");

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Reads X-User-Role: undefined when absent, a Role, or an error reason for an unknown value. */
function roleHeader(headers: IncomingHttpHeaders): { role?: Role; error?: string } {
  const raw = header(headers, "x-user-role");
  if (raw === undefined || raw.trim() === "") return {};
  const role = parseRole(raw);
  return role ? { role } : { error: `X-User-Role "${raw.slice(0, 40)}" is not a role; use one of ${ROLE_LIST}` };
}

export function createAuthenticator(config: AuthConfig, settings: AuthenticatorOptions = {}): Authenticator {
  if (config.mode === "header") {
    return {
      mode: "header",
      async authenticate(headers) {
        const { role, error } = roleHeader(headers);
        if (error) return { authenticated: false, reason: error };
        if (!role) return { authenticated: false, reason: `X-User-Role header is required (${ROLE_LIST})` };
        const raw = header(headers, "x-user-id")?.trim();
        const id = raw ? raw.slice(0, 200) : undefined;
        if (!settings.claimsHeader) return { authenticated: true, role, id };
        const given = claimsHeader(headers);
        if (given.error) return { authenticated: false, reason: given.error };
        return { authenticated: true, role, id, claims: { ...given.claims, ...(id === undefined ? {} : { sub: id }) } };
      },
    };
  }

  const secret = config.secret ? new TextEncoder().encode(config.secret) : undefined;
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    requiredClaims: ["exp", "sub"],
  };
  // jose is loaded with the first token, not at start (a tenth of the start-up's module loading; header mode never
  // needs it); the JWKS set is built once, on first use.
  let verifier: Promise<{
    jose: typeof import("jose");
    jwks?: ReturnType<(typeof import("jose"))["createRemoteJWKSet"]>;
  }>;
  const loadVerifier = () =>
    (verifier ??= import("jose").then((jose) => ({
      jose,
      jwks: config.jwksUrl ? jose.createRemoteJWKSet(new URL(config.jwksUrl)) : undefined,
    })));

  async function verify(token: string): Promise<JWTPayload> {
    const { jose, jwks } = await loadVerifier();
    const { alg } = jose.decodeProtectedHeader(token);
    if (alg === "HS256" && secret) {
      return (await jose.jwtVerify(token, secret, { ...options, algorithms: ["HS256"] })).payload;
    }
    if (jwks && (alg === "RS256" || alg === "ES256")) {
      return (await jose.jwtVerify(token, jwks, { ...options, algorithms: ["RS256", "ES256"] })).payload;
    }
    throw new jose.errors.JOSEAlgNotAllowed(`alg ${String(alg)} is not accepted`);
  }

  return {
    mode: "jwt",
    async authenticate(headers) {
      const authorization = header(headers, "authorization");
      const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
      if (!match) return { authenticated: false, reason: "Authorization: Bearer <token> header is required" };
      let payload: JWTPayload;
      try {
        payload = await verify(match[1]);
      } catch (err) {
        return { authenticated: false, reason: describeTokenError(err, (await loadVerifier()).jose.errors) };
      }
      const roles = payload.roles;
      if (typeof payload.sub !== "string" || !Array.isArray(roles) || roles.some((r) => typeof r !== "string")) {
        return { authenticated: false, reason: "token must carry sub (a string) and roles (an array of role names)" };
      }
      const { role, error } = roleHeader(headers);
      if (error) return { authenticated: false, reason: error };
      if (role && !roles.map((r: string) => r.toLowerCase()).includes(role)) {
        return { authenticated: false, reason: `X-User-Role ${role} is not among the token's roles` };
      }
      return { authenticated: true, role, id: payload.sub, expiresAt: payload.exp! * 1000, claims: payload };
    },
  };
}

function describeTokenError(err: unknown, joseErrors: (typeof import("jose"))["errors"]): string {
  if (err instanceof joseErrors.JWTExpired) return "token has expired";
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `token claim ${err.claim} is invalid or missing`;
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return "token algorithm is not accepted";
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "token signature is invalid";
  return "token is malformed or cannot be verified";
}
