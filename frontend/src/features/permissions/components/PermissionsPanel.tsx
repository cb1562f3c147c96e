import { useState, type FormEvent, type ReactNode } from "react";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { FieldErrors } from "@/components/FieldErrors";
import { ErrorBox, Loading } from "@/components/Status";
import { useCreateGrant } from "@/features/permissions/api/create-grant";
import { useGrants } from "@/features/permissions/api/get-grants";
import { useGroups } from "@/features/permissions/api/get-groups";
import { useRevokeGrant } from "@/features/permissions/api/revoke-grant";
import { RowPolicies } from "@/features/permissions/components/RowPolicies";
import { PRIVILEGES, type Grant, type PrincipalType, type Privilege, type Securable } from "@/features/permissions/types";
import { grantOrigin, isDirect, levelOf, mayManage, securableName, sortGrants } from "@/features/permissions/utils/grants";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";
import { useMe } from "@/lib/auth";
import { formatDateTime } from "@/lib/format";

/** The Permissions tab of a catalog, a schema or a table: the grants that hold on it (its own and those inherited
 * from above, each saying where it comes from), and grant / revoke for team admins and MANAGE holders; on a table,
 * its row filter and column masks too. `children` are further sections of the tab. */
export function PermissionsPanel({ securable, children }: { securable: Securable; children?: ReactNode }) {
  const { team, isAdmin } = useTeam();
  const { data: me } = useMe();
  const name = securableName(securable);
  const grants = useGrants(team, name);
  const groups = useGroups(team);
  const manage = mayManage({ grants: grants.data ?? [], groups: groups.data ?? [], username: me?.username, isAdmin });
  return (
    <div className="permissions" data-testid="permissions">
      <section aria-label={`Grants on ${name}`}>
        <h3>Grants</h3>
        {grants.isPending ? (
          <Loading label="Loading grants…" />
        ) : grants.error ? (
          <ErrorBox error={grants.error} title="Could not load grants" onRetry={() => grants.refetch()} />
        ) : (
          <GrantTable grants={sortGrants(grants.data, securable)} securable={securable} canRevoke={manage} />
        )}
      </section>
      {manage && <GrantForm securable={securable} groupNames={groups.data?.map((g) => g.name) ?? []} />}
      {/* MANAGE is known once the grants are: until then the policies show read-only */}
      {securable.table && <RowPolicies table={name} canManage={manage} />}
      {children}
    </div>
  );
}

function GrantTable({ grants, securable, canRevoke }: { grants: Grant[]; securable: Securable; canRevoke: boolean }) {
  const { team } = useTeam();
  const revoke = useRevokeGrant(team);
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const level = levelOf(securable);
  if (grants.length === 0) {
    return (
      <p className="muted" data-testid="no-grants">
        No grant holds on this {level}. While no grant names anything in catalog {securable.catalog}, the team&apos;s
        roles decide (developers read and write everything in it); the first grant makes it governed.
      </p>
    );
  }
  return (
    <>
      {revoke.error && <ErrorBox error={revoke.error} title="Could not revoke" />}
      <table className="table compact responsive" aria-label={`Grants that hold on ${securableName(securable)}`}>
        <thead>
          <tr>
            <th scope="col">Privilege</th>
            <th scope="col">To</th>
            <th scope="col">Granted on</th>
            <th scope="col">By</th>
            {canRevoke && <th scope="col"><span className="sr-only">Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {grants.map((g) => (
            <tr key={g.id} data-testid={`grant-${g.privilege}-${g.principal_type}-${g.principal}`}>
              <td data-label="Privilege" className="mono">{g.privilege}</td>
              <td data-label="To">
                <span className="badge">{g.principal_type}</span> {g.principal}
              </td>
              <td data-label="Granted on">
                {isDirect(g, securable) ? grantOrigin(g, securable) : <span className="muted">inherited from {grantOrigin(g, securable)}</span>}
              </td>
              <td data-label="By">
                {g.granted_by ?? "—"} <span className="muted small">{formatDateTime(g.granted_at)}</span>
              </td>
              {canRevoke && (
                <td data-label="">
                  {/* an inherited grant is revoked where it was made (MANAGE here is not MANAGE there) */}
                  {isDirect(g, securable) && (
                    <button type="button" className="btn small danger" onClick={() => setRevoking(g)}
                            aria-label={`Revoke ${g.privilege} from ${g.principal_type} ${g.principal}`}>
                      Revoke
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke ${revoking?.privilege} on ${revoking?.securable}?`}
        message={`${revoking?.principal_type} ${revoking?.principal} loses it from their next run or editor call.`}
        confirmLabel="Revoke"
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
      />
    </>
  );
}

function GrantForm({ securable, groupNames }: { securable: Securable; groupNames: string[] }) {
  const { team } = useTeam();
  const create = useCreateGrant(team);
  const [privilege, setPrivilege] = useState<Privilege>("SELECT");
  const [principalType, setPrincipalType] = useState<PrincipalType>(groupNames.length ? "group" : "user");
  const [principal, setPrincipal] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { securable: securableName(securable), privilege, principal_type: principalType, principal: principal.trim() },
      { onSuccess: () => setPrincipal("") },
    );
  };
  const principalErrors = [...fieldErrors(create.error, "principal"), ...fieldErrors(create.error, "principal_type")];
  const otherError = create.error && principalErrors.length === 0;
  return (
    <form className="inline-form grant-form" onSubmit={submit} aria-label="Grant a privilege">
      <div className="field">
        <label htmlFor="grant-privilege">Privilege</label>
        <select id="grant-privilege" value={privilege} onChange={(e) => setPrivilege(e.target.value as Privilege)}>
          {PRIVILEGES.map((p) => <option key={p} value={p}>{p}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor="grant-principal-type">To a</label>
        <select id="grant-principal-type" value={principalType} onChange={(e) => setPrincipalType(e.target.value as PrincipalType)}>
          <option value="group">group</option>
          <option value="user">member</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="grant-principal">{principalType === "group" ? "Group" : "Username"}</label>
        <input id="grant-principal" value={principal} onChange={(e) => setPrincipal(e.target.value)} required autoComplete="off"
               list={principalType === "group" ? "grant-groups" : undefined} aria-describedby="grant-principal-errors" />
        <datalist id="grant-groups">
          {groupNames.map((g) => <option key={g} value={g} />)}
        </datalist>
        <FieldErrors id="grant-principal-errors" messages={principalErrors} />
      </div>
      <button type="submit" className="btn primary" disabled={create.isPending}>
        {create.isPending ? "Granting…" : "Grant"}
      </button>
      {otherError && <ErrorBox error={create.error} title="Could not grant" />}
    </form>
  );
}
