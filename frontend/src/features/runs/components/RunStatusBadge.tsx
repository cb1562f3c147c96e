export function RunStatusBadge({ status }: { status: string }) {
  const icon: Record<string, string> = { QUEUED: "◷", RUNNING: "▶", SUCCEEDED: "✓", FAILED: "✗", CANCELLED: "⊘" };
  return (
    <span className={`status status-${status.toLowerCase()}`} data-testid="run-status">
      <span aria-hidden="true">{icon[status] ?? "•"}</span> {status.charAt(0) + status.slice(1).toLowerCase()}
    </span>
  );
}
