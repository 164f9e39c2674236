// When AUTH_JWKS_URL is configured, then RS256/ES256 tokens signed by a key of that JWKS are accepted, and tokens
// signed by any other key, or HS256 tokens, are UNAUTHORIZED.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from "jose";
import { ListTeachersDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { token } from "../helpers/tokens";

type Key = KeyLike;

describe("jwt mode with a JWKS endpoint", () => {
  let jwks: http.Server;
  let t: TestApp;
  let rsa: { privateKey: Key; publicKey: Key };
  let ec: { privateKey: Key; publicKey: Key };

  beforeAll(async () => {
    rsa = await generateKeyPair("RS256");
    ec = await generateKeyPair("ES256");
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
      { ...(await exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
    ];
    jwks = http.createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    t = await startTestApp({ auth: { mode: "jwt", jwksUrl: url, audience: "projects" } });
  });

  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  const sign = (key: Key, alg: string, kid: string, claims: object = { roles: ["teacher"] }) =>
    new SignJWT({ ...claims })
      .setProtectedHeader({ alg, kid })
      .setSubject("t-1")
      .setAudience("projects")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(key);

  it.each([
    ["RS256", "rsa-1"],
    ["ES256", "ec-1"],
  ])("when a %s token signed by a JWKS key is sent, then the query succeeds", async (alg, kid) => {
    const key = alg === "RS256" ? rsa.privateKey : ec.privateKey;
    const res = await t.gql(
      ListTeachersDocument,
      {},
      { authorization: `Bearer ${await sign(key, alg, kid)}`, "x-user-role": "teacher" },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.teachers.total).toBe(0);
  });

  it("when the token is signed by a key outside the JWKS, then it is UNAUTHORIZED", async () => {
    const stranger = await generateKeyPair("RS256");
    const res = await t.gql(
      ListTeachersDocument,
      {},
      { authorization: `Bearer ${await sign(stranger.privateKey, "RS256", "rsa-1")}` },
    );
    expect(res.data).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe("UNAUTHORIZED");
  });

  it("when an HS256 token is sent to a JWKS-only service, then it is UNAUTHORIZED", async () => {
    const res = await t.gql(
      ListTeachersDocument,
      {},
      { authorization: `Bearer ${await token(["admin"], { audience: "projects" })}` },
    );
    expect(res.errors?.[0].extensions?.code).toBe("UNAUTHORIZED");
  });

  it("when the audience differs, then it is UNAUTHORIZED", async () => {
    const jwt = await new SignJWT({ roles: ["teacher"] })
      .setProtectedHeader({ alg: "RS256", kid: "rsa-1" })
      .setSubject("t-1")
      .setAudience("someone-else")
      .setExpirationTime("10m")
      .sign(rsa.privateKey);
    const res = await t.gql(ListTeachersDocument, {}, { authorization: `Bearer ${jwt}` });
    expect(res.errors?.[0].extensions?.code).toBe("UNAUTHORIZED");
    expect(res.errors?.[0].message).toMatch(/aud/);
  });
});
