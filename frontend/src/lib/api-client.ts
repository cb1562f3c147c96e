// The one HTTP client every request file uses: JSON in and out, session cookies, CSRF on writes,
// and the API's error body turned into an ApiError the screens can show.

export type ErrorDetails = Record<string, unknown> | unknown[];

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails;

  constructor(status: number, code: string, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const API_BASE = "/api/v1";

type RequestOptions = {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  params?: Record<string, string | number | undefined | null>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

export type ApiResponse<T> = { data: T; headers: Headers; status: number };

function readCookie(name: string): string | null {
  const match = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
  return match ? decodeURIComponent(match.slice(name.length + 1)) : null;
}

let csrfReady: Promise<void> | null = null;

/** Make sure the csrftoken cookie exists before the first write (Django sets it on /auth/csrf/). */
export function ensureCsrf(force = false): Promise<void> {
  if (!force && readCookie("csrftoken")) return Promise.resolve();
  if (!csrfReady || force) {
    csrfReady = fetch(`${API_BASE}/auth/csrf/`, { credentials: "same-origin" }).then(() => undefined);
  }
  return csrfReady;
}

function buildUrl(path: string, params?: RequestOptions["params"]): string {
  const url = path.startsWith("/") ? path : `${API_BASE}/${path}`;
  if (!params) return url;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") qs.set(k, String(v));
  }
  const s = qs.toString();
  return s ? `${url}?${s}` : url;
}

async function toError(res: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // not JSON (a proxy page, say): fall through to a generic message
  }
  const err = (body as { error?: { code?: string; message?: string; details?: ErrorDetails } } | null)?.error;
  if (err && typeof err.message === "string") {
    return new ApiError(res.status, err.code ?? "error", err.message, err.details ?? {});
  }
  const generic: Record<number, string> = {
    401: "You are not signed in.",
    403: "You do not have permission to do that.",
    404: "Not found.",
    502: "The server could not reach a backing system.",
    503: "The service is temporarily unavailable; retry shortly.",
  };
  return new ApiError(res.status, "http_error", generic[res.status] ?? `Request failed (HTTP ${res.status}).`);
}

/** Send one request to the REST API and return its JSON body with headers. */
export async function apiRequest<T>(path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const method = opts.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") {
    await ensureCsrf();
    const token = readCookie("csrftoken");
    if (token) headers["X-CSRFToken"] = token;
  }
  let res: Response;
  try {
    res = await fetch(buildUrl(path, opts.params), {
      method,
      headers,
      credentials: "same-origin",
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
      signal: opts.signal,
    });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "network", "Cannot reach the server. Check your connection and retry.");
  }
  if (!res.ok) throw await toError(res);
  const data = (res.status === 204 ? null : await res.json().catch(() => null)) as T;
  return { data, headers: res.headers, status: res.status };
}

/** GET returning only the body. */
export async function apiGet<T>(path: string, params?: RequestOptions["params"], signal?: AbortSignal): Promise<T> {
  return (await apiRequest<T>(path, { params, signal })).data;
}

/** POST returning only the body. */
export async function apiPost<T>(path: string, body?: unknown): Promise<T> {
  return (await apiRequest<T>(path, { method: "POST", body })).data;
}

/** A field's messages from a 400's details (`details.configuration.<field>` or `details.<field>`). */
export function fieldErrors(error: unknown, ...path: string[]): string[] {
  if (!(error instanceof ApiError) || error.status !== 400) return [];
  let node: unknown = error.details;
  for (const key of path) {
    if (node && typeof node === "object" && !Array.isArray(node)) node = (node as Record<string, unknown>)[key];
    else return [];
  }
  if (typeof node === "string") return [node];
  if (Array.isArray(node)) return node.filter((m): m is string => typeof m === "string");
  return [];
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}
