import { ErrorBox } from "@/components/Status";
import { useConfirmStreamSchema, type StreamColumn } from "@/features/metadata/api/confirm-stream-schema";

/** A stream table whose schema was inferred from its newest records: says so, shows the suggested event-time
 * column, and lets a team admin declare it in the catalog as it is (queries then read these types). */
export function InferredSchema({ team, catalog, database, table, columns, sampled, eventTime, canConfirm }: {
  team: string; catalog: string; database: string; table: string; columns: StreamColumn[];
  sampled?: string; eventTime?: string; canConfirm: boolean;
}) {
  const confirm = useConfirmStreamSchema(team);
  return (
    <div className="card inferred-schema" role="group" aria-label="Inferred schema">
      <p>
        <strong>Inferred schema</strong> — from {sampled ?? "the"} newest records; nothing is declared for this table
        yet.{eventTime ? <> Suggested event-time column: <code>{eventTime}</code>.</> : null}
      </p>
      {canConfirm ? (
        <button type="button" className="btn primary small" disabled={confirm.isPending}
                onClick={() => confirm.mutate({ catalog, database, table, columns, eventTime })}>
          Confirm this schema
        </button>
      ) : (
        <p className="muted">A team admin can confirm it to declare it in the catalog.</p>
      )}
      {confirm.error ? <ErrorBox error={confirm.error} title="Not confirmed" /> : null}
    </div>
  );
}
