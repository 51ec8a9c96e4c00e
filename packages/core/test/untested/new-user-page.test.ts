/**
 * `pages.newUser`: a person signing in for the first time — the sign-in created their user
 * — is sent to the new-user page with the callback URL they were going to, so the page can
 * send them on; a returning user goes straight to the callback URL. As in Auth.js
 * (`lib/actions/callback/index.ts`: `${pages.newUser}?callbackUrl=…`, `&` when the page
 * has a query of its own), for OAuth/OIDC and email links, with JWT and database sessions.
 *
 * Real peers: `oidc-provider` on loopback (login and consent pages) and an SMTP server
 * whose mail is parsed from raw MIME.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { Browser, direct, SECRET } from "../helpers.js"
import { clientId, clientSecret, demoProvider, signInAtOP } from "../oauth/real-op.js"
import { openLink, requestLink, startSmtp, type TestSmtp } from "../email/support.js"

const ORIGIN = "http://localhost:3000"

let op: DemoOidcProvider
let smtp: TestSmtp
beforeAll(async () => {
  op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [`${ORIGIN}/auth/callback/demo-oidc`] })
  smtp = await startSmtp()
})
afterAll(async () => {
  await op.close()
  await smtp.close()
})

/** An app with the demo OIDC provider and an email provider, on a fresh memory adapter. */
function app(strategy: "jwt" | "database", newUser = "/welcome"): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy },
    pages: { newUser },
    providers: [demoProvider(op.issuer), Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" })],
  }
}

/** Where a response redirects, resolved against the app's origin (Auth.js answers with a path). */
function target(response: Response): string {
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location")!, ORIGIN).href
}

/** The new-user page's URL for a first sign-in that was going to `callbackUrl`. */
function newUserPage(callbackUrl: string, page = "/welcome"): string {
  const url = new URL(page, ORIGIN)
  url.searchParams.append("callbackUrl", callbackUrl)
  return url.href
}

async function signInByEmail(browser: Browser, email: string, callbackUrl: string): Promise<Response> {
  await requestLink(browser, email, { callbackUrl })
  return openLink(browser, smtp.linkFor(email))
}

describe.each(["jwt", "database"] as const)("pages.newUser with %s sessions", (strategy) => {
  it("sends a first OIDC sign-in to the new-user page with the callback URL, and a returning one to the callback URL", async () => {
    const config = app(strategy)
    const first = new Browser(direct(config), ORIGIN)
    expect(target(await signInAtOP(first, "demo-oidc", "/dashboard"))).toBe(newUserPage(`${ORIGIN}/dashboard`))
    // The session is established before the detour: the new-user page sees a signed-in user.
    expect((await first.session()).user.email).toBe("demo@portcullis.dev")

    const returning = new Browser(direct(config), ORIGIN)
    expect(target(await signInAtOP(returning, "demo-oidc", "/dashboard"))).toBe(`${ORIGIN}/dashboard`)
    expect((await returning.session()).user.email).toBe("demo@portcullis.dev")
  })

  it("sends a first email-link sign-in to the new-user page with the callback URL, and a returning one to the callback URL", async () => {
    const config = app(strategy)
    const email = `new-${strategy}@example.com`
    const first = new Browser(direct(config), ORIGIN)
    expect(target(await signInByEmail(first, email, `${ORIGIN}/inbox`))).toBe(newUserPage(`${ORIGIN}/inbox`))
    expect((await first.session()).user.email).toBe(email)

    const returning = new Browser(direct(config), ORIGIN)
    expect(target(await signInByEmail(returning, email, `${ORIGIN}/inbox`))).toBe(`${ORIGIN}/inbox`)
    expect((await returning.session()).user.email).toBe(email)
  })

  it("appends the callback URL to a new-user page that has a query of its own", async () => {
    const config = app(strategy, "/welcome?tour=1")
    const response = await signInAtOP(new Browser(direct(config), ORIGIN), "demo-oidc", "/dashboard")
    const landed = new URL(target(response))
    expect(landed.pathname).toBe("/welcome")
    expect([...landed.searchParams]).toEqual([
      ["tour", "1"],
      ["callbackUrl", `${ORIGIN}/dashboard`],
    ])
  })

  it("with no callback URL asked for, passes the app's origin as the callback URL", async () => {
    const response = await signInAtOP(new Browser(direct(app(strategy)), ORIGIN))
    expect(target(response)).toBe(newUserPage(ORIGIN))
  })
})

describe("pages.newUser without an adapter", () => {
  it("never applies: with no user store no sign-in is known to be the first", async () => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, pages: { newUser: "/welcome" }, providers: [demoProvider(op.issuer)] }
    const response = await signInAtOP(new Browser(direct(config), ORIGIN), "demo-oidc", "/dashboard")
    expect(target(response)).toBe(`${ORIGIN}/dashboard`)
  })
})
