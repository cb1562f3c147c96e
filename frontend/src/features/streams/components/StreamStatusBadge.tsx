import type { StreamStatus } from "@/features/streams/types";

const ICON: Record<StreamStatus, string> = {
  STARTING: "◷", RUNNING: "▶", RESTARTING: "↻", STOPPING: "◼", STOPPED: "■", FAILED: "✗",
};

/** A streaming job's lifecycle state as a coloured badge (icon + word, so it does not rely on colour alone). */
export function StreamStatusBadge({ status }: { status: StreamStatus }) {
  return (
    <span className={`stream-status stream-status-${status.toLowerCase()}`} data-testid="stream-status">
      <span aria-hidden="true">{ICON[status] ?? "•"}</span> {status}
    </span>
  );
}
