import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { StreamAction, StreamState } from "@/features/streams/types";
import { streamPath, streamStateKey } from "@/features/streams/api/get-stream-state";
import { streamMetricsKey } from "@/features/streams/api/get-stream-metrics";
import { streamAuditKey } from "@/features/streams/api/get-stream-audit";

/** POST stream/{start|stop|restart|reset}/; reset carries the explicit confirmation the API requires. */
export function streamAction(team: string, jobId: string | number, action: StreamAction): Promise<StreamState> {
  return apiPost<StreamState>(streamPath(team, jobId, `${action}/`), action === "reset" ? { confirm: true } : undefined);
}

/** One mutation for the four lifecycle actions; the answer (202 + state) replaces the polled state at once. */
export function useStreamAction(team: string, jobId: string | number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (action: StreamAction) => streamAction(team, jobId, action),
    onSuccess: (state) => {
      qc.setQueryData(streamStateKey(team, jobId), state);
      void qc.invalidateQueries({ queryKey: streamStateKey(team, jobId) });
      void qc.invalidateQueries({ queryKey: streamMetricsKey(team, jobId) });
      void qc.invalidateQueries({ queryKey: streamAuditKey(team, jobId) });
    },
  });
}
