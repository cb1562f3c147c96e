import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";

import { ApiError } from "@/lib/api-client";

// "me" lives in lib/auth.ts; the key is repeated here so this module does not import the auth hooks
const ME_KEY = ["me"];

/** A session that ended (expired, signed out in another tab) sends the user back to the sign-in page. */
function onApiError(error: unknown): void {
  if (error instanceof ApiError && (error.status === 401 || error.code === "not_authenticated")) {
    if (queryClient.getQueryData(ME_KEY)) queryClient.setQueryData(ME_KEY, null);
  }
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onApiError }),
  mutationCache: new MutationCache({ onError: onApiError }),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // a 4xx will not fix itself; retry only what may be transient
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
    },
    mutations: { retry: false },
  },
});
