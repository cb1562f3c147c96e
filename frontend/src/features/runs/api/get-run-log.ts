import { apiGet } from "@/lib/api-client";
import type { RunLog } from "@/features/runs/types";

/** Log lines from `offset` on; the answer says where the next request starts (`next_offset`). */
export function getRunLog(team: string, id: string, offset: number, signal?: AbortSignal): Promise<RunLog> {
  return apiGet<RunLog>(`teams/${encodeURIComponent(team)}/runs/${encodeURIComponent(id)}/log/`, { offset }, signal);
}
