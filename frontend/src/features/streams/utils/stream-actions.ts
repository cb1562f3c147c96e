// Which lifecycle buttons a streaming job's page enables, from its state and the user's role. The API is the
// authority (it answers 409/403); this only keeps buttons that would be refused from being offered.

import type { Role } from "@/lib/auth";
import type { StreamAction, StreamStatus } from "@/features/streams/types";

export const STREAM_ACTIONS: readonly StreamAction[] = ["start", "stop", "restart", "reset"];

/** A driver is (or is about to be) running: the state is worth polling and the charts are live. */
export const ACTIVE_STATUSES: ReadonlySet<StreamStatus> = new Set(["STARTING", "RUNNING", "RESTARTING", "STOPPING"]);

const BY_STATUS: Record<StreamStatus, readonly StreamAction[]> = {
  // start is refused (409) while a driver is wanted; reset only when nothing runs (it drops the checkpoint)
  STOPPED: ["start", "reset"],
  FAILED: ["start", "reset"],
  // restart = a new driver on the same checkpoint, so only while one is wanted
  STARTING: ["stop", "restart"],
  RUNNING: ["stop", "restart"],
  RESTARTING: ["stop", "restart"],
  // the batch in flight is finishing; stop again settles a stream whose supervisor is gone
  STOPPING: ["stop"],
};

/** Whether a role may act on a team's streaming jobs (viewers only read). */
export function canOperate(role: Role | null | undefined): boolean {
  return role === "admin" || role === "developer";
}

/** The actions enabled for a job in `status` for a user with `role` (none for viewers or an unknown status). */
export function allowedActions(status: StreamStatus | null | undefined, role: Role | null | undefined): Set<StreamAction> {
  if (!status || !canOperate(role)) return new Set();
  return new Set(BY_STATUS[status] ?? []);
}

/** Whether the state should be polled (every 2 s) and the metrics refreshed live. */
export function isActive(status: StreamStatus | null | undefined): boolean {
  return !!status && ACTIVE_STATUSES.has(status);
}
