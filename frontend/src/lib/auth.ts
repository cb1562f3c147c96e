// The signed-in user ("me") is shared by every screen, so it lives in lib rather than in one feature.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { ApiError, apiGet, apiPost, ensureCsrf } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type Role = Schemas["RoleEnum"];
export type TeamRole = Schemas["TeamRoleOutput"];
export type Me = Schemas["Me"];

export const meQueryKey = ["me"] as const;

/** The current user, or null when nobody is signed in. The session endpoint answers 200 either way, so a
 * signed-out first visit logs no failed request in the browser console. */
export async function getMe(): Promise<Me | null> {
  try {
    const session = await apiGet<Schemas["Session"]>("auth/session/");
    return session.authenticated ? session.user : null;
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return null;
    throw e;
  }
}

export function useMe() {
  return useQuery({ queryKey: meQueryKey, queryFn: getMe, staleTime: 60_000 });
}

export function useLogin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (input: Schemas["LoginApiInputRequest"]) => {
      await ensureCsrf();
      return apiPost<Me>("auth/login/", input);
    },
    onSuccess: (me) => {
      qc.clear();
      qc.setQueryData(meQueryKey, me);
    },
  });
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => apiPost<null>("auth/logout/"),
    onSuccess: () => {
      qc.clear();
      qc.setQueryData(meQueryKey, null);
    },
  });
}
