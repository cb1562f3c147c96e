import { ErrorBox } from "@/components/Status";
import type { ConnectionResult } from "@/features/catalogs/types";
import { formatDuration } from "@/lib/format";

/** Outcome of "Test connection": success or the system's error, and how long it took. */
export function ConnectionResultView({ result, error }: { result?: ConnectionResult; error?: unknown }) {
  if (error) return <ErrorBox error={error} title="Test connection failed" />;
  if (!result) return null;
  return (
    <div className={`connection-result ${result.ok ? "ok" : "fail"}`} role="status" data-testid="connection-result">
      <strong>{result.ok ? "✓ Connected" : "✗ Connection failed"}</strong>
      <span className="muted"> in {formatDuration(result.elapsed_ms)}</span>
      <div className="connection-message">{result.message}</div>
    </div>
  );
}
