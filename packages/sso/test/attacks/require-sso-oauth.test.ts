/**
 * requireSso against a configured OAuth/OIDC provider (a real `oidc-provider` on loopback)
 * asserting an address of the domain: the provider's sign-in is refused for that domain and
 * goes through once the domain no longer requires SSO.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { demoOidcAccount, startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { clientId, clientSecret, demoProvider, signInAtOP } from "../../../core/test/oauth/real-op.js"
import { assembledApp, noStack, type App, type Tenant } from "./app.js"

const DOMAIN = demoOidcAccount.email.split("@")[1]!
let app: App
let op: DemoOidcProvider
let tenant: Tenant

beforeAll(async () => {
  app = await assembledApp()
  op = await startDemoOidcProvider({ port: 0, clientId, clientSecret, redirectUris: [`${app.server.origin}/auth/callback/demo-oidc`] })
  // Before the app's first request: the configuration is read then.
  app.config.providers.push(demoProvider(op.issuer))
  tenant = await app.tenant("demo", DOMAIN, { requireSso: true })
})
afterAll(async () => {
  await app.close()
  await op.close()
})

describe("an OAuth provider asserting an address of a domain that requires SSO", () => {
  it("signs no one in, with a 4xx or a redirect to the error page, never a 500", async () => {
    const b = app.browser()
    const answer = await signInAtOP(b, "demo-oidc")
    expect(answer.status).toBeLessThan(500)
    expect(noStack(await answer.text())).toBe(true)
    expect(b.sessionCookie()).toBeUndefined()
    expect(await b.session()).toBeNull()
  })

  // Core asks the gates before it creates the user and links the account: a refusal leaves neither.
  it("leaves no user or account behind", async () => {
    const answer = await signInAtOP(app.browser(), "demo-oidc")
    expect(new URL(answer.headers.get("location") ?? "http://x/").searchParams.get("error")).toBe("AccountSuspended")
    expect(await app.adapter.getUserByEmail!(demoOidcAccount.email)).toBeNull()
    expect(await app.adapter.getUserByAccount!({ provider: "demo-oidc", providerAccountId: demoOidcAccount.sub })).toBeNull()
  })

  it("signs in once the organization stops requiring SSO for the domain", async () => {
    await app.store.updateDomain(DOMAIN, tenant.id, { requireSso: false })
    const b = app.browser()
    await signInAtOP(b, "demo-oidc")
    expect((await b.session())?.user?.email).toBe(demoOidcAccount.email)
  })
})
