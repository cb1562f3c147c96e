import { apiGet } from "@/lib/api-client";
import type { LogChunk, LogLine } from "@/features/runs/types";

/** Log lines from `offset` on; the answer says where the next request starts. */
export async function getRunLog(team: string, id: string, offset: number, signal?: AbortSignal): Promise<LogChunk> {
  const data = await apiGet<unknown>(`teams/${encodeURIComponent(team)}/runs/${encodeURIComponent(id)}/log/`, { offset }, signal);
  const o = (data ?? {}) as Record<string, unknown>;
  const raw = (Array.isArray(data) ? data : (o.lines ?? o.results ?? [])) as (string | LogLine)[];
  const lines = raw.map((l) => (typeof l === "string" ? { message: l } : l));
  const next = typeof o.next_offset === "number" ? o.next_offset : typeof o.offset === "number" ? (o.offset as number) + lines.length : offset + lines.length;
  return { lines, next_offset: next };
}
