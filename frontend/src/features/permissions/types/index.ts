// Shapes of grants/, groups/, row-filters/ and column-masks/ as the OpenAPI schema declares them (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type Grant = Schemas["GrantOutput"];
export type GrantList = Schemas["PaginatedGrantOutputList"];
export type GrantInput = Schemas["GrantListApiInputRequest"];
export type Privilege = Schemas["PrivilegeEnum"];
export type PrincipalType = Schemas["PrincipalTypeEnum"];
export type AccessGroup = Schemas["AccessGroup"];
export type AccessGroupList = Schemas["PaginatedAccessGroupList"];
export type GroupInput = Schemas["GroupListApiInputRequest"];
export type RowFilter = Schemas["RowFilterOutput"];
export type RowFilterList = Schemas["PaginatedRowFilterOutputList"];
export type RowFilterInput = Schemas["RowFilterListApiInputRequest"];
export type RowFilterPatch = Schemas["PatchedRowFilterDetailApiInputRequest"];
export type ColumnMask = Schemas["ColumnMaskOutput"];
export type ColumnMaskList = Schemas["PaginatedColumnMaskOutputList"];
export type ColumnMaskInput = Schemas["ColumnMaskListApiInputRequest"];
export type ColumnMaskPatch = Schemas["PatchedColumnMaskDetailApiInputRequest"];

/** docs/access.md: MANAGE implies the others, every privilege implies BROWSE. */
export const PRIVILEGES: Privilege[] = ["BROWSE", "SELECT", "MODIFY", "CREATE", "MANAGE"];

/** What a Permissions tab is about: a catalog, a schema of it, or a table of that schema. */
export type Securable = { catalog: string; database?: string; table?: string };
