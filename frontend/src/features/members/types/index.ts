export type MemberRole = "admin" | "developer" | "viewer";
export const ROLES: MemberRole[] = ["admin", "developer", "viewer"];
export type Member = { username: string; role: MemberRole; created_at?: string };
