/**
 * A Cloudflare Worker with Portcullis: sign-in with an OpenID provider and **database
 * sessions in Workers KV** (through `@portcullis/unstorage-adapter` and unstorage's
 * `cloudflare-kv-binding` driver). No `nodejs_compat` flag is needed.
 *
 * `wrangler.toml` binds a KV namespace as `AUTH_KV` and sets the variables of {@link Env}
 * (secrets with `wrangler secret put`). `runtimes/test/worker-example.test.ts` bundles
 * this file the way `wrangler deploy` does and runs it in workerd through miniflare.
 *
 * Routes: `/auth/*` is Portcullis (sign-in page, callbacks, session, sign-out); `/` is a
 * page that reads the session server-side.
 */
import { createAuth, type AuthConfig, type AuthRuntime } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { UnstorageAdapter } from "@portcullis/unstorage-adapter"
import { createStorage } from "unstorage"
import cloudflareKVBindingDriver, { type KVOptions } from "unstorage/drivers/cloudflare-kv-binding"

/** The Worker's bindings. */
export interface Env {
  AUTH_SECRET: string
  /** The KV namespace holding users, accounts and sessions. */
  AUTH_KV: NonNullable<KVOptions["binding"]>
  OIDC_ISSUER: string
  OIDC_CLIENT_ID: string
  OIDC_CLIENT_SECRET: string
  /** "1" only when developing against a provider on http://127.0.0.1. */
  OIDC_ALLOW_INSECURE_LOOPBACK?: string
}

function authConfig(env: Env): AuthConfig {
  const provider: OAuthConfig<Record<string, unknown>> = {
    id: "oidc",
    name: "Company login",
    type: "oidc",
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    allowInsecureLoopback: env.OIDC_ALLOW_INSECURE_LOOPBACK === "1",
  }
  const storage = createStorage({ driver: cloudflareKVBindingDriver({ binding: env.AUTH_KV }) })
  return {
    secret: env.AUTH_SECRET,
    trustHost: true,
    adapter: UnstorageAdapter(storage, { prefix: "auth" }),
    session: { strategy: "database" },
    providers: [provider],
  }
}

// One runtime per isolate: the configuration is resolved once and its caches are kept
// between requests. (A Worker's env is only known inside `fetch`, hence the lazy build.)
let auth: AuthRuntime | undefined

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

async function home(request: Request, runtime: AuthRuntime): Promise<Response> {
  const sessionRequest = new Request(new URL(`${runtime.basePath}/session`, request.url), { headers: { cookie: request.headers.get("cookie") ?? "" } })
  const sessionResponse = await runtime.handle(sessionRequest)
  const session = (await sessionResponse.json()) as { user?: { name?: string | null; email?: string | null } } | null
  const who = session?.user ? `Signed in as ${escapeHtml(session.user.name ?? session.user.email ?? "someone")}` : "Not signed in"
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", "cache-control": "private, no-store" })
  // A database session's expiry is pushed forward on reads: pass its cookie on.
  for (const cookie of sessionResponse.headers.getSetCookie()) headers.append("set-cookie", cookie)
  return new Response(`<!doctype html><title>Worker</title><p>${who}</p><a href="${runtime.basePath}/signin">Sign in</a>`, { headers })
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    auth ??= createAuth(authConfig(env))
    const { pathname } = new URL(request.url)
    if (pathname === auth.basePath || pathname.startsWith(`${auth.basePath}/`)) return auth.handle(request)
    if (pathname === "/") return home(request, auth)
    return new Response("Not found", { status: 404 })
  },
}
