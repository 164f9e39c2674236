// The author of a change as the domain records it (ProjectChange.actor_id / actor_role): taken from the
// authenticated caller by the transports and passed into the services, so requests never reach the domain.
import type { Caller } from "./caller";
import { ROLES } from "./roles";
import { unauthorized } from "../shared/errors";

/**
 * The roles a recorded change names as its author's (GraphQL's enum Role): a caller's role; "none" for a caller
 * authenticated without an acting role (jwt mode without X-User-Role, allowed where any caller may act); "system"
 * for the service itself.
 */
export const ACTOR_ROLES = [...ROLES, "none", "system"] as const;
export type ActorRole = (typeof ACTOR_ROLES)[number];

export interface Actor {
  /** JWT sub, or X-User-Id in header mode; null when the caller gave none. */
  id: string | null;
  role: ActorRole;
}

/** Changes made by the service itself (seed script, maintenance), not on behalf of a caller. */
export const SYSTEM_ACTOR: Actor = { id: null, role: "system" };

/**
 * The actor of a change made for `caller`. Every change needs an authenticated caller (the role table is checked
 * first); a caller that is not is refused here too (fail closed), so no change is ever recorded without an author.
 */
export function actorOf(caller: Caller): Actor {
  if (!caller.authenticated) throw unauthorized(caller.reason);
  return { id: caller.id ?? null, role: caller.role ?? "none" };
}
