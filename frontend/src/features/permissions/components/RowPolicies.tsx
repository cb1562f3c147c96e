import { useState, type FormEvent } from "react";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { FieldErrors } from "@/components/FieldErrors";
import { ErrorBox, Loading } from "@/components/Status";
import { useCreateColumnMask } from "@/features/permissions/api/create-column-mask";
import { useCreateRowFilter } from "@/features/permissions/api/create-row-filter";
import { useDeleteColumnMask } from "@/features/permissions/api/delete-column-mask";
import { useDeleteRowFilter } from "@/features/permissions/api/delete-row-filter";
import { useColumnMasks } from "@/features/permissions/api/get-column-masks";
import { useRowFilters } from "@/features/permissions/api/get-row-filters";
import { useUpdateColumnMask } from "@/features/permissions/api/update-column-mask";
import { useUpdateRowFilter } from "@/features/permissions/api/update-row-filter";
import type { ColumnMask, RowFilter } from "@/features/permissions/types";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";
import { formatDateTime } from "@/lib/format";

const HIDDEN = "Only team admins and MANAGE holders of this table see the expression.";

/** A table's row filter and column masks on its Permissions tab (docs/access.md, "Row filters and column masks"):
 * every reader who may browse the table sees that they exist; the expression, and add / edit / remove, are for
 * team admins and MANAGE holders (`canManage`; the API answers `expression: null` to everyone else). */
export function RowPolicies({ table, canManage }: { table: string; canManage: boolean }) {
  const { team } = useTeam();
  const filters = useRowFilters(team, table);
  const masks = useColumnMasks(team, table);
  return (
    <>
      <section aria-label={`Row filter of ${table}`} data-testid="row-filter">
        <h3>Row filter</h3>
        {filters.isPending ? (
          <Loading label="Loading the row filter…" />
        ) : filters.error ? (
          <ErrorBox error={filters.error} title="Could not load the row filter" onRetry={() => filters.refetch()} />
        ) : (
          <RowFilterView table={table} found={filters.data[0]} canManage={canManage} />
        )}
      </section>
      <section aria-label={`Column masks of ${table}`} data-testid="column-masks">
        <h3>Column masks</h3>
        {masks.isPending ? (
          <Loading label="Loading column masks…" />
        ) : masks.error ? (
          <ErrorBox error={masks.error} title="Could not load column masks" onRetry={() => masks.refetch()} />
        ) : (
          <ColumnMaskView table={table} masks={masks.data} canManage={canManage} />
        )}
      </section>
    </>
  );
}

function Expression({ text }: { text: string | null }) {
  return text === null ? <span className="muted">hidden</span> : <code className="mono">{text}</code>;
}

function Changed({ item }: { item: RowFilter | ColumnMask }) {
  return (
    <>
      {item.updated_by ?? item.created_by ?? "—"} <span className="muted small">{formatDateTime(item.updated_at)}</span>
    </>
  );
}

function RowFilterView({ table, found, canManage }: { table: string; found: RowFilter | undefined; canManage: boolean }) {
  const { team } = useTeam();
  const create = useCreateRowFilter(team);
  const update = useUpdateRowFilter(team);
  const remove = useDeleteRowFilter(team);
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  if (!found) {
    return (
      <>
        <p className="muted" data-testid="no-row-filter">No row filter: every reader of this table sees every row.</p>
        {canManage && (
          <PolicyForm label="Add a row filter" submit="Add filter" pending={create.isPending} error={create.error}
                      onSubmit={(v) => create.mutate({ table, expression: v.expression, description: v.description })} />
        )}
      </>
    );
  }
  return (
    <>
      <dl className="policy" data-testid="row-filter-current">
        <dt>Rows returned where</dt>
        <dd><Expression text={found.expression} /></dd>
        {found.description && <><dt>Description</dt><dd>{found.description}</dd></>}
        <dt>Changed by</dt>
        <dd><Changed item={found} /></dd>
      </dl>
      {found.expression === null && <p className="muted small">{HIDDEN}</p>}
      {canManage && !editing && (
        <div className="actions">
          <button type="button" className="btn small" onClick={() => setEditing(true)}>Edit filter</button>
          <button type="button" className="btn small danger" onClick={() => setRemoving(true)}>Remove filter</button>
        </div>
      )}
      {canManage && editing && (
        <PolicyForm label="Edit the row filter" submit="Save filter" pending={update.isPending} error={update.error}
                    initial={{ expression: found.expression ?? "", description: found.description }}
                    onCancel={() => { update.reset(); setEditing(false); }}
                    onSubmit={(v) => update.mutate({ id: found.id, patch: v }, { onSuccess: () => setEditing(false) })} />
      )}
      {remove.error && <ErrorBox error={remove.error} title="Could not remove the row filter" />}
      <ConfirmDialog
        open={removing}
        title={`Remove the row filter of ${table}?`}
        message="Every reader sees every row of the table from their next run or editor call."
        confirmLabel="Remove"
        busy={remove.isPending}
        onCancel={() => setRemoving(false)}
        onConfirm={() => remove.mutate(found.id, { onSettled: () => setRemoving(false) })}
      />
    </>
  );
}

function ColumnMaskView({ table, masks, canManage }: { table: string; masks: ColumnMask[]; canManage: boolean }) {
  const { team } = useTeam();
  const create = useCreateColumnMask(team);
  const update = useUpdateColumnMask(team);
  const remove = useDeleteColumnMask(team);
  const [editing, setEditing] = useState<number | null>(null);
  const [removing, setRemoving] = useState<ColumnMask | null>(null);
  const [added, setAdded] = useState(0); // a new key empties the add form after a mask was added
  const editedMask = masks.find((m) => m.id === editing);
  return (
    <>
      {masks.length === 0 ? (
        <p className="muted" data-testid="no-column-masks">No column mask: every reader sees the stored values.</p>
      ) : (
        <table className="table compact responsive" aria-label={`Column masks of ${table}`}>
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Readers see</th>
              <th scope="col">Description</th>
              <th scope="col">Changed by</th>
              {canManage && <th scope="col"><span className="sr-only">Actions</span></th>}
            </tr>
          </thead>
          <tbody>
            {masks.map((m) => (
              <tr key={m.id} data-testid={`column-mask-${m.column}`}>
                <td data-label="Column" className="mono">{m.column}</td>
                <td data-label="Readers see"><Expression text={m.expression} /></td>
                <td data-label="Description">{m.description || "—"}</td>
                <td data-label="Changed by"><Changed item={m} /></td>
                {canManage && (
                  <td data-label="">
                    <button type="button" className="btn small" onClick={() => { update.reset(); setEditing(m.id); }}
                            aria-label={`Edit the mask of ${m.column}`}>Edit</button>{" "}
                    <button type="button" className="btn small danger" onClick={() => setRemoving(m)}
                            aria-label={`Remove the mask of ${m.column}`}>Remove</button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {masks.some((m) => m.expression === null) && <p className="muted small">{HIDDEN}</p>}
      {canManage && editedMask && (
        <PolicyForm key={editedMask.id} label={`Edit the mask of ${editedMask.column}`} submit="Save mask"
                    pending={update.isPending} error={update.error}
                    initial={{ expression: editedMask.expression ?? "", description: editedMask.description }}
                    onCancel={() => setEditing(null)}
                    onSubmit={(v) => update.mutate({ id: editedMask.id, patch: v }, { onSuccess: () => setEditing(null) })} />
      )}
      {canManage && (
        <PolicyForm key={added} label="Add a column mask" submit="Add mask" withColumn pending={create.isPending} error={create.error}
                    onSubmit={(v) => create.mutate({ table, column: v.column, expression: v.expression, description: v.description },
                                                   { onSuccess: () => setAdded((n) => n + 1) })} />
      )}
      {remove.error && <ErrorBox error={remove.error} title="Could not remove the mask" />}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove the mask of ${removing?.column}?`}
        message="Every reader sees the column's stored values from their next run or editor call."
        confirmLabel="Remove"
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing.id, { onSettled: () => setRemoving(null) })}
      />
    </>
  );
}

type PolicyValues = { column: string; expression: string; description: string };

/** Add or edit a filter or mask; the server's 400 messages show under the field they name (its parser decides). */
function PolicyForm({ label, submit, withColumn = false, initial, pending, error, onSubmit, onCancel }: {
  label: string; submit: string; withColumn?: boolean; initial?: { expression: string; description: string };
  pending: boolean; error: unknown; onSubmit: (v: PolicyValues) => void; onCancel?: () => void;
}) {
  const [column, setColumn] = useState("");
  const [expression, setExpression] = useState(initial?.expression ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const id = label.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  const send = (e: FormEvent) => {
    e.preventDefault();
    onSubmit({ column: column.trim(), expression, description });
  };
  const messages = { column: fieldErrors(error, "column"), expression: fieldErrors(error, "expression"),
                     description: fieldErrors(error, "description"), table: fieldErrors(error, "table") };
  const inline = Object.values(messages).some((m) => m.length > 0);
  return (
    <form className="policy-form" onSubmit={send} aria-label={label}>
      {withColumn && (
        <div className="field">
          <label htmlFor={`${id}-column`}>Column</label>
          <input id={`${id}-column`} value={column} onChange={(e) => setColumn(e.target.value)} required autoComplete="off"
                 aria-describedby={`${id}-column-errors`} />
          <FieldErrors id={`${id}-column-errors`} messages={messages.column} />
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-expression`}>Expression</label>
        <textarea id={`${id}-expression`} className="mono" rows={2} value={expression} required spellCheck={false}
                  onChange={(e) => setExpression(e.target.value)} aria-describedby={`${id}-expression-help ${id}-expression-errors`} />
        <p className="muted small" id={`${id}-expression-help`}>
          {withColumn ? "A scalar over the table's columns" : "A boolean over the table's columns"}; <code>current_user()</code>{" "}
          and <code>is_member(&apos;group&apos;)</code> name the reader. It applies to every reader, team admins included.
        </p>
        <FieldErrors id={`${id}-expression-errors`} messages={[...messages.expression, ...messages.table]} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-description`}>Description</label>
        <input id={`${id}-description`} value={description} onChange={(e) => setDescription(e.target.value)} autoComplete="off"
               aria-describedby={`${id}-description-errors`} />
        <FieldErrors id={`${id}-description-errors`} messages={messages.description} />
      </div>
      <div className="actions">
        <button type="submit" className="btn primary" disabled={pending}>{pending ? "Saving…" : submit}</button>
        {onCancel && <button type="button" className="btn" onClick={onCancel}>Cancel</button>}
      </div>
      {Boolean(error) && !inline && <ErrorBox error={error} title="Could not save" />}
    </form>
  );
}
