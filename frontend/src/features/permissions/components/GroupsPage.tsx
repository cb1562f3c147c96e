import { useState, type FormEvent } from "react";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { FieldErrors } from "@/components/FieldErrors";
import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useCreateGroup } from "@/features/permissions/api/create-group";
import { useDeleteGroup } from "@/features/permissions/api/delete-group";
import { useGroups } from "@/features/permissions/api/get-groups";
import { useAddGroupMember, useRemoveGroupMember } from "@/features/permissions/api/group-members";
import type { AccessGroup } from "@/features/permissions/types";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";

/** The team's groups (principals of grants) with their members; team admins create, change and delete them. */
export function GroupsPage() {
  const { team, isAdmin } = useTeam();
  const groups = useGroups(team);
  const remove = useDeleteGroup(team);
  const [deleting, setDeleting] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Groups" />
      <p className="muted">
        A group is a set of the team&apos;s members that grants can name; a member holds their own grants and their
        groups&apos;. Grant privileges from the Permissions tab of a catalog, schema or table in Browse.
      </p>
      {isAdmin && <GroupCreateForm />}
      {remove.error && <ErrorBox error={remove.error} title="Could not delete the group" />}
      {groups.isPending ? (
        <Loading label="Loading groups…" />
      ) : groups.error ? (
        <ErrorBox error={groups.error} title="Could not load groups" onRetry={() => groups.refetch()} />
      ) : groups.data.length === 0 ? (
        <EmptyState title="No groups yet">{isAdmin ? <p>Create one above.</p> : <p>A team admin creates groups.</p>}</EmptyState>
      ) : (
        <table className="table responsive" aria-label="Groups">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Members</th>
              {isAdmin && <th scope="col"><span className="sr-only">Actions</span></th>}
            </tr>
          </thead>
          <tbody>
            {groups.data.map((g) => (
              <GroupRow key={g.name} group={g} isAdmin={isAdmin} onDelete={() => setDeleting(g.name)} />
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete group ${deleting}?`}
        message="Its grants are revoked with it (each recorded in the catalog history); its members keep their own grants."
        confirmLabel="Delete group"
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting, { onSettled: () => setDeleting(null) })}
      />
    </>
  );
}

function GroupCreateForm() {
  const { team } = useTeam();
  const create = useCreateGroup(team);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [members, setMembers] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const usernames = members.split(/[\s,]+/).filter(Boolean);
    create.mutate({ name: name.trim(), description, members: usernames }, {
      onSuccess: () => { setName(""); setDescription(""); setMembers(""); },
    });
  };
  const nameErrors = fieldErrors(create.error, "name");
  const memberErrors = [...fieldErrors(create.error, "members"), ...fieldErrors(create.error, "principal")];
  return (
    <form className="card inline-form" onSubmit={submit} aria-label="Create a group">
      <div className="field">
        <label htmlFor="group-name">Name</label>
        <input id="group-name" value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off"
               pattern="[a-z][a-z0-9_\-]{0,62}" title="Lowercase letters, digits, _ and -, starting with a letter"
               aria-describedby="group-name-errors" />
        <FieldErrors id="group-name-errors" messages={nameErrors} />
      </div>
      <div className="field">
        <label htmlFor="group-description">Description</label>
        <input id="group-description" value={description} onChange={(e) => setDescription(e.target.value)} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="group-members">Members</label>
        <input id="group-members" value={members} onChange={(e) => setMembers(e.target.value)} autoComplete="off"
               placeholder="alice, bob" aria-describedby="group-members-errors" />
        <FieldErrors id="group-members-errors" messages={memberErrors} />
      </div>
      <button type="submit" className="btn primary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create group"}
      </button>
      {create.error && nameErrors.length === 0 && memberErrors.length === 0 && <ErrorBox error={create.error} title="Could not create" />}
    </form>
  );
}

function GroupRow({ group, isAdmin, onDelete }: { group: AccessGroup; isAdmin: boolean; onDelete: () => void }) {
  const { team } = useTeam();
  const add = useAddGroupMember(team);
  const remove = useRemoveGroupMember(team);
  const [username, setUsername] = useState("");
  const inputId = `add-member-${group.name}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ group: group.name, username: username.trim() }, { onSuccess: () => setUsername("") });
  };
  return (
    <tr data-testid={`group-${group.name}`}>
      <td data-label="Group">
        <strong className="mono">{group.name}</strong>
        {group.description && <div className="muted small">{group.description}</div>}
      </td>
      <td data-label="Members">
        {group.members.length === 0 && <span className="muted">no members</span>}
        <ul className="chip-list" aria-label={`Members of ${group.name}`}>
          {group.members.map((m) => (
            <li key={m} className="badge">
              {m}
              {isAdmin && (
                <button type="button" className="chip-remove" aria-label={`Remove ${m} from ${group.name}`}
                        disabled={remove.isPending} onClick={() => remove.mutate({ group: group.name, username: m })}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
        {isAdmin && (
          <form className="inline-form compact" onSubmit={submit} aria-label={`Add a member to ${group.name}`}>
            <label htmlFor={inputId} className="sr-only">Username to add to {group.name}</label>
            <input id={inputId} value={username} onChange={(e) => setUsername(e.target.value)} placeholder="username"
                   required autoComplete="off" aria-describedby={`${inputId}-errors`} />
            <button type="submit" className="btn small" disabled={add.isPending}>Add</button>
            <FieldErrors id={`${inputId}-errors`} messages={fieldErrors(add.error, "principal")} />
          </form>
        )}
        {remove.error && <ErrorBox error={remove.error} title="Could not remove" />}
        {add.error && fieldErrors(add.error, "principal").length === 0 && <ErrorBox error={add.error} title="Could not add" />}
      </td>
      {isAdmin && (
        <td data-label="">
          <button type="button" className="btn small danger" onClick={onDelete}>Delete</button>
        </td>
      )}
    </tr>
  );
}
