import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { ConnectionResult } from "@/features/catalogs/types";

export type TestConnectionInput =
  // a saved catalog (its stored secrets are used) …
  | { name: string; catalog_type?: string; configuration?: Record<string, unknown> }
  // … or an unsaved form
  | { name?: undefined; catalog_type: string; configuration: Record<string, unknown> };

export function testConnection(team: string, input: TestConnectionInput): Promise<ConnectionResult> {
  const base = `teams/${encodeURIComponent(team)}/catalogs/`;
  if (input.name) {
    const body = input.configuration ? { catalog_type: input.catalog_type, configuration: input.configuration } : {};
    return apiPost<ConnectionResult>(`${base}${encodeURIComponent(input.name)}/test-connection/`, body);
  }
  return apiPost<ConnectionResult>(`${base}test-connection/`, {
    catalog_type: input.catalog_type,
    configuration: input.configuration,
  });
}

export function useTestConnection(team: string) {
  return useMutation({ mutationFn: (input: TestConnectionInput) => testConnection(team, input) });
}
