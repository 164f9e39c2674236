// Who is calling: the result of authenticating one request, carried in the context of every transport.
import type { Role } from "./roles";

export type Caller =
  | {
      authenticated: true;
      role?: Role;
      id?: string;
      /** When the credentials stop being valid (ms since the epoch): a token's exp. Long-lived connections check it. */
      expiresAt?: number;
      /**
       * The claims row rules may name (ACCESS_POLICY): a token's payload in jwt mode; in header mode X-User-Claims,
       * with X-User-Id as `sub`. Undefined when none were given.
       */
      claims?: Readonly<Record<string, unknown>>;
    }
  | { authenticated: false; reason: string };
