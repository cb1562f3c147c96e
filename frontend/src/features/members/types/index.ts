// Shapes of members/ as the OpenAPI schema declares them (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type MemberRole = Schemas["RoleEnum"];
export const ROLES: MemberRole[] = ["admin", "developer", "viewer"];
export type Member = Schemas["MemberOutput"];
export type MemberList = Schemas["PaginatedMemberOutputList"];
export type MemberInput = Schemas["MemberListApiInputRequest"];
