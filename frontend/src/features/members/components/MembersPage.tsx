import { useState, type FormEvent } from "react";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { FieldErrors } from "@/components/FieldErrors";
import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useAddMember } from "@/features/members/api/add-member";
import { useMembers } from "@/features/members/api/get-members";
import { useRemoveMember } from "@/features/members/api/remove-member";
import { useUpdateMember } from "@/features/members/api/update-member";
import { ROLES, type MemberRole } from "@/features/members/types";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";
import { useMe } from "@/lib/auth";
import { formatDateTime } from "@/lib/format";

/** Team members and their roles; team admins add, change and remove members. */
export function MembersPage() {
  const { team, isAdmin } = useTeam();
  const { data: me } = useMe();
  const q = useMembers(team);
  const add = useAddMember(team);
  const update = useUpdateMember(team);
  const remove = useRemoveMember(team);
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<MemberRole>("developer");
  const [removing, setRemoving] = useState<string | null>(null);

  if (!isAdmin) {
    return (
      <EmptyState title="Team admins only">
        <p>Only a team admin manages members.</p>
      </EmptyState>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ username: username.trim(), role }, { onSuccess: () => setUsername("") });
  };

  return (
    <>
      <PageHeader title="Members" />
      <form className="card inline-form" onSubmit={submit} aria-label="Add a member">
        <div className="field">
          <label htmlFor="member-username">Username</label>
          <input id="member-username" value={username} onChange={(e) => setUsername(e.target.value)} required autoComplete="off" aria-describedby="member-username-errors" />
          <FieldErrors id="member-username-errors" messages={fieldErrors(add.error, "username")} />
        </div>
        <div className="field">
          <label htmlFor="member-role">Role</label>
          <select id="member-role" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add member"}
        </button>
        {add.error && fieldErrors(add.error, "username").length === 0 && <ErrorBox error={add.error} title="Could not add" />}
      </form>
      {update.error && <ErrorBox error={update.error} title="Could not change the role" />}
      {remove.error && <ErrorBox error={remove.error} title="Could not remove" />}
      {q.isPending ? (
        <Loading label="Loading members…" />
      ) : q.error ? (
        <ErrorBox error={q.error} title="Could not load members" onRetry={() => q.refetch()} />
      ) : (
        <table className="table responsive" aria-label="Members">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Member since</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((m) => (
              <tr key={m.username}>
                <td data-label="User">
                  {m.username}
                  {m.username === me?.username && <span className="muted"> (you)</span>}
                </td>
                <td data-label="Role">
                  <select
                    aria-label={`Role of ${m.username}`}
                    value={m.role}
                    disabled={update.isPending}
                    onChange={(e) => update.mutate({ username: m.username, role: e.target.value as MemberRole })}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td data-label="Member since">{formatDateTime(m.created_at)}</td>
                <td data-label="">
                  <button type="button" className="btn small danger" onClick={() => setRemoving(m.username)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing}?`}
        message={`${removing} loses access to this team's catalogs, jobs and runs.`}
        confirmLabel="Remove member"
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing, { onSettled: () => setRemoving(null) })}
      />
    </>
  );
}
