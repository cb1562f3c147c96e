import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { StreamAuditPage } from "@/features/streams/types";
import { streamPath } from "@/features/streams/api/get-stream-state";

export const streamAuditKey = (team: string, jobId: string | number) => ["streams", team, String(jobId), "audit"];

/** The newest `size` entries of the stream's audit trail (start, stop, restart, reset: who and when). */
export function getStreamAudit(team: string, jobId: string | number, size: number): Promise<StreamAuditPage> {
  return apiGet<StreamAuditPage>(streamPath(team, jobId, "audit/"), { page_size: String(size) });
}

export function useStreamAudit(team: string, jobId: string | number, size = 20) {
  return useQuery({ queryKey: [...streamAuditKey(team, jobId), size], queryFn: () => getStreamAudit(team, jobId, size) });
}
