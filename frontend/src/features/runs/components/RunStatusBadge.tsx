export function RunStatusBadge({ status }: { status: string }) {
  const icon: Record<string, string> = { QUEUED: "◷", RUNNING: "▶", SUCCEEDED: "✓", FAILED: "✗", CANCELLED: "⊘" };
  return (
    <span className={`status status-${status.toLowerCase()}`}>
      <span aria-hidden="true">{icon[status.toUpperCase()] ?? "•"}</span> {status.charAt(0).toUpperCase() + status.slice(1).toLowerCase()}
    </span>
  );
}
