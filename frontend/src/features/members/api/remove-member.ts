import { useMutation, useQueryClient } from "@tanstack/react-query";

import { memberKeys } from "@/features/members/api/get-members";
import { apiRequest } from "@/lib/api-client";

export async function removeMember(team: string, username: string): Promise<void> {
  await apiRequest<null>(`teams/${encodeURIComponent(team)}/members/${encodeURIComponent(username)}/`, { method: "DELETE" });
}

export function useRemoveMember(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (username: string) => removeMember(team, username),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.all(team) }),
  });
}
