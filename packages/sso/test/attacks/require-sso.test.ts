/**
 * The attacker who holds a password (or a mailbox) for an address of a domain whose
 * organization requires SSO: every other way in — password, magic link, the `signIn` of a
 * credentials provider — is refused for that domain however the address is written, and
 * still open to addresses of other domains.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { assembledApp, type App, type Tenant } from "./app.js"

let app: App
let secure: Tenant

beforeAll(async () => {
  app = await assembledApp()
  secure = await app.tenant("secure", "secure.test", { requireSso: true })
})
afterAll(() => app.close())

async function passwordSignIn(email: string) {
  const user = await app.passwordUser(email)
  const b = app.browser()
  const response = await b.signIn({ email: user.email, password: user.password })
  return { response, b }
}

async function magicLink(email: string) {
  const b = app.browser()
  const requested = await b.request("/auth/signin/email", { form: { email, csrfToken: await b.csrfToken() } })
  expect(requested.status).toBeLessThan(500)
  const link = app.links.get(email.toLowerCase()) ?? app.links.get(email)
  if (!link) return { b, opened: null }
  const url = new URL(link)
  const opened = await b.request(url.pathname + url.search)
  return { b, opened }
}

describe("password sign-in for a domain that requires SSO", () => {
  for (const email of ["staff@secure.test", "Upper@SECURE.TEST", "dot@secure.test.", "tag+x@secure.test"]) {
    it(`is refused for ${email}, leaving no session`, async () => {
      const { response, b } = await passwordSignIn(email)
      expect(response.status).toBeLessThan(500)
      expect(b.sessionCookie()).toBeUndefined()
      expect(await b.session()).toBeNull()
    })
  }

  it("is allowed for another domain's address", async () => {
    const { response, b } = await passwordSignIn("someone@elsewhere.test")
    expect(response.status).toBe(302)
    expect((await b.session()).user.email).toBe("someone@elsewhere.test")
  })

  it("is allowed for a subdomain, which is claimed on its own (documented: requireSso covers the exact domain)", async () => {
    const { b } = await passwordSignIn("eng@eng.secure.test")
    expect((await b.session())?.user?.email).toBe("eng@eng.secure.test")
  })

  it("is refused for the organization's own owner too when their address is of the domain", async () => {
    const boss = await app.passwordUser("boss@secure.test")
    await app.orgStore.addMember({ organizationId: secure.id, userId: boss.id, role: "owner", createdAt: new Date() })
    const b = app.browser()
    await b.signIn({ email: boss.email, password: boss.password })
    expect(b.sessionCookie()).toBeUndefined()
  })
})

describe("magic link for a domain that requires SSO", () => {
  it("signs no one in from the link (an existing user)", async () => {
    await app.adapter.createUser!({ id: "user-linky", email: "linky@secure.test", name: "Linky", emailVerified: new Date() })
    const { b, opened } = await magicLink("linky@secure.test")
    if (opened) expect(opened.status).toBeLessThan(500)
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("signs no one in from the link (a new address)", async () => {
    const { b, opened } = await magicLink("fresh@secure.test")
    if (opened) expect(opened.status).toBeLessThan(500)
    expect(b.sessionCookie()).toBeUndefined()
  })

  // Core asks the gates before mailing the link (and again before it creates the user): the
  // address is refused at once, no link is mailed, no user is made.
  it("creates no user for a new address of the domain, and mails no link", async () => {
    const b = app.browser()
    const requested = await b.request("/auth/signin/email", { form: { email: "fresh2@secure.test", csrfToken: await b.csrfToken() } })
    expect(new URL(requested.headers.get("location")!).searchParams.get("error")).toBe("AccountSuspended")
    expect(app.links.has("fresh2@secure.test")).toBe(false)
    expect(await app.adapter.getUserByEmail!("fresh2@secure.test")).toBeNull()
  })

  it("still signs in another domain's address", async () => {
    const { b, opened } = await magicLink("reader@elsewhere.test")
    expect(opened?.status).toBe(302)
    expect((await b.session())?.user?.email).toBe("reader@elsewhere.test")
  })
})

describe("the SSO connection of the domain itself", () => {
  it("still signs its people in (the gate lets the organization's own connection through)", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, secure.connection)
    await app.postAcs(b, secure.connection.id, app.acsForm(secure.idp, secure.connection, requestId, { nameId: "staff-sso", attributes: { mail: ["sso-staff@secure.test"] } }))
    expect((await b.session())?.user?.email).toBe("sso-staff@secure.test")
  })
})

describe("another organization's SSO connection", () => {
  it("does not sign in an address of the domain, even for an account linked to it before the domain required SSO", async () => {
    const other = await app.tenant("other", "other.test")
    // Linked when secure.test was nobody's (a contractor signing in through other's IdP).
    const moved = await app.adapter.createUser!({ id: "user-moved", email: "moved@secure.test", name: "Moved", emailVerified: null })
    await app.adapter.linkAccount!({ userId: moved.id, type: "saml" as never, provider: `sso:${other.connection.id}`, providerAccountId: "moved-nameid" })
    const b = app.browser()
    const requestId = await app.startSaml(b, other.connection)
    const answer = await app.postAcs(b, other.connection.id, app.acsForm(other.idp, other.connection, requestId, { nameId: "moved-nameid", attributes: { mail: ["moved@secure.test"] } }))
    expect(answer.status).toBeLessThan(500)
    expect(b.sessionCookie()).toBeUndefined()
    // The domain's own connection is still the way in.
    const own = app.browser()
    const ownRequest = await app.startSaml(own, secure.connection)
    await app.postAcs(own, secure.connection.id, app.acsForm(secure.idp, secure.connection, ownRequest, { nameId: "moved-at-secure", attributes: { mail: ["moved@secure.test"] } }))
    expect((await own.session())?.user?.email).toBe("moved@secure.test")
  })
})
