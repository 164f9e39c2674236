// Who is calling: the result of authenticating one request, carried in the context of every transport.
import type { Role } from "./roles";

export type Caller = { authenticated: true; role?: Role; id?: string } | { authenticated: false; reason: string };
