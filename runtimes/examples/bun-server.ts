/**
 * A Bun server with Portcullis: `Bun.serve` hands `/auth/*` to the core's fetch handler
 * as it is (Bun speaks `Request`/`Response`), with sign-in through an OpenID provider and
 * JWT sessions. Run: `bun runtimes/examples/bun-server.ts` with the variables below set.
 * `runtimes/test/bun-example.test.ts` starts it and signs in over HTTP.
 *
 * - `AUTH_SECRET`: 32+ random characters (`npx portcullis secret`)
 * - `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`: the OpenID provider
 * - `OIDC_ALLOW_INSECURE_LOOPBACK=1`: only when developing against http://127.0.0.1
 * - `PORT`: default 3000
 */
import { createAuth } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch(request: Request): Response | Promise<Response> }): { url: URL }
}

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`set ${name}`)
  return value
}

const oidc: OAuthConfig<Record<string, unknown>> = {
  id: "oidc",
  name: "Company login",
  type: "oidc",
  issuer: required("OIDC_ISSUER"),
  clientId: required("OIDC_CLIENT_ID"),
  clientSecret: required("OIDC_CLIENT_SECRET"),
  allowInsecureLoopback: process.env.OIDC_ALLOW_INSECURE_LOOPBACK === "1",
}

// One runtime for the process: the configuration is resolved once.
const auth = createAuth({ secret: required("AUTH_SECRET"), trustHost: true, providers: [oidc] })

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

async function home(request: Request): Promise<Response> {
  const sessionRequest = new Request(new URL(`${auth.basePath}/session`, request.url), { headers: { cookie: request.headers.get("cookie") ?? "" } })
  const session = (await (await auth.handle(sessionRequest)).json()) as { user?: { name?: string | null; email?: string | null } } | null
  const who = session?.user ? `Signed in as ${escapeHtml(session.user.name ?? session.user.email ?? "someone")}` : "Not signed in"
  return new Response(`<!doctype html><title>Bun</title><p>${who}</p><a href="${auth.basePath}/signin">Sign in</a>`, {
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-store" },
  })
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 3000),
  hostname: "127.0.0.1",
  fetch(request) {
    const { pathname } = new URL(request.url)
    if (pathname === auth.basePath || pathname.startsWith(`${auth.basePath}/`)) return auth.handle(request)
    if (pathname === "/") return home(request)
    return new Response("Not found", { status: 404 })
  },
})
console.log(`listening on ${server.url.origin}`)
