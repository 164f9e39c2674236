// The roles a caller may act as.
export const ROLES = ["student", "teacher", "admin"] as const;
export type Role = (typeof ROLES)[number];

export function parseRole(value: string): Role | undefined {
  const role = value.trim().toLowerCase();
  return (ROLES as readonly string[]).includes(role) ? (role as Role) : undefined;
}
