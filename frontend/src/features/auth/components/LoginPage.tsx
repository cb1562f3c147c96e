import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";

import { ErrorBox } from "@/components/Status";
import { meQueryKey, useLogin, type Me } from "@/lib/auth";

function safeNext(next: string | null): string {
  // only same-app paths, never an absolute URL someone put in the link
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  // read, not fetch: asking /me/ here would only answer "not signed in" with an error status
  const me = useQueryClient().getQueryData<Me | null>(meQueryKey);
  const login = useLogin();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const next = safeNext(params.get("next"));

  if (me && !login.isPending) return <Navigate to={next} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ username, password }, { onSuccess: () => navigate(next, { replace: true }) });
  };

  return (
    <div className="center-page">
      <form className="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">◈ Sign in to Lakeport</h1>
        <div className="field">
          <label htmlFor="login-username">Username</label>
          <input id="login-username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} autoFocus />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input id="login-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        {login.error && <ErrorBox error={login.error} />}
        <button type="submit" className="btn primary wide" disabled={login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
