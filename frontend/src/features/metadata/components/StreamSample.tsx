import { ResultView } from "@/components/ResultView";
import { ErrorBox, Loading } from "@/components/Status";
import { SAMPLE_LIMIT, useSampleTable } from "@/features/metadata/api/sample-table";

/** A Sample button for a stream table and the newest records it returns (read from the broker, no Spark). */
export function StreamSample({ team, catalog, database, table }: { team: string; catalog: string; database: string; table: string }) {
  const sample = useSampleTable(team, catalog, database, table);
  return (
    <section className="stream-sample" aria-label="Stream sample" data-testid="stream-sample">
      <button type="button" className="btn" onClick={() => sample.mutate(SAMPLE_LIMIT)} disabled={sample.isPending}>
        {sample.isPending ? "Sampling…" : sample.data ? "Sample again" : "Sample"}
      </button>
      {sample.isPending ? (
        <Loading label="Reading the newest records…" />
      ) : sample.error ? (
        <ErrorBox error={sample.error} title="Could not sample the stream" />
      ) : sample.data ? (
        <>
          <p className="muted small">
            Newest {sample.data.rows.length} record{sample.data.rows.length === 1 ? "" : "s"}, oldest first ·{" "}
            {sample.data.schema === "declared" ? "declared schema" : "schema inferred from these records"}
          </p>
          <ResultView result={sample.data} caption={`Sample of ${catalog}.${database}.${table}`} />
        </>
      ) : null}
    </section>
  );
}
