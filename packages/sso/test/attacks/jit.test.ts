/**
 * The attacker as an identity provider (or its admin): what an IdP asserts about an address
 * never links it to someone else's account, never makes an owner, never demotes one, and a
 * disabled connection signs no one in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountProvider } from "../../src/jit.js"
import { assembledApp, noStack, type App, type Tenant } from "./app.js"

let app: App
let acme: Tenant
let globex: Tenant
/** acme has claimed pending.test but never proved it. */
const PENDING = "pending.test"

beforeAll(async () => {
  app = await assembledApp()
  acme = await app.tenant("acme", "acme.test")
  globex = await app.tenant("globex", "globex.test")
  await app.store.claimDomain({ domain: PENDING, organizationId: acme.id, token: "t", verifiedAt: null, requireSso: false, connectionId: null, createdAt: new Date() })
})
afterAll(() => app.close())

/** acme's IdP asserts `email` (NameID and mail attribute) and the browser posts it to acme's ACS. */
async function ssoAs(tenant: Tenant, email: string, attributes: Record<string, string[]> = {}, nameId = `${email}#${tenant.id}`) {
  const b = app.browser()
  const seen = app.audit.length
  const requestId = await app.startSaml(b, tenant.connection)
  const response = await app.postAcs(b, tenant.connection.id, app.acsForm(tenant.idp, tenant.connection, requestId, { nameId, attributes: { mail: [email], ...attributes } }))
  const body = await response.text()
  expect(response.status, body.slice(0, 200)).toBeLessThan(500)
  expect(noStack(body)).toBe(true)
  const session = b.sessionCookie() ? await b.session() : null
  // Who the browser is signed in as: the session names no user id, the audit of the sign-in does.
  const signedInAs = app.audit.slice(seen).find((e) => e.type === "sso.signIn" && e.outcome === "success")?.userId ?? null
  if (session) expect(signedInAs).not.toBeNull()
  return { response, status: response.status, session, userId: signedInAs, browser: b }
}

/** Whether the SSO account ssoAs makes for `email` (its NameID) belongs to `userId`. */
async function linked(userId: string, tenant: Tenant, email: string) {
  const user = await app.adapter.getUserByAccount!({ provider: accountProvider(tenant.connection), providerAccountId: `${email}#${tenant.id}` })
  return user?.id === userId
}

describe("an asserted address the organization did not verify never reaches an existing account", () => {
  it("an address of a domain the organization claimed but did not verify", async () => {
    const victim = await app.passwordUser(`victim@${PENDING}`)
    const { userId } = await ssoAs(acme, victim.email)
    expect(userId).not.toBe(victim.id)
    expect(await app.orgStore.getMembership(acme.id, victim.id)).toBeNull()
    expect(await linked(victim.id, acme, victim.email)).toBe(false)
  })

  it("an address of another organization's verified domain", async () => {
    const victim = await app.passwordUser("cfo@globex.test")
    const { userId } = await ssoAs(acme, victim.email)
    expect(userId).not.toBe(victim.id)
    expect(await app.orgStore.getMembership(acme.id, victim.id)).toBeNull()
    expect(await linked(victim.id, acme, victim.email)).toBe(false)
  })

  it("an address of a domain nobody verified (a webmail user with a password)", async () => {
    const victim = await app.passwordUser("someone@webmail.test")
    const { userId } = await ssoAs(acme, victim.email)
    expect(userId).not.toBe(victim.id)
    expect(await app.orgStore.getMembership(acme.id, victim.id)).toBeNull()
  })

  for (const [what, spelled] of [
    ["upper case", "CFO2@GLOBEX.TEST"],
    ["a trailing dot", "cfo2@globex.test."],
    ["a +tag", "cfo2+sso@globex.test"],
    ["a Cyrillic look-alike letter", "cfo2@glоbex.test"],
    ["a fullwidth look-alike", "cfo2@ｇｌｏｂｅｘ.test"],
  ] as const) {
    it(`another organization's address written with ${what}`, async () => {
      const victim = await app.passwordUser("cfo2@globex.test").catch(async () => ({ id: (await app.adapter.getUserByEmail!("cfo2@globex.test"))!.id, email: "cfo2@globex.test" }))
      const { userId } = await ssoAs(acme, spelled)
      expect(userId).not.toBe(victim.id)
      expect(await app.orgStore.getMembership(acme.id, victim.id)).toBeNull()
    })
  }

  it("an address of the organization's own verified domain links (the vouched case, for contrast)", async () => {
    const member = await app.passwordUser("linked@acme.test")
    const { userId } = await ssoAs(acme, "Linked@ACME.test")
    expect(userId).toBe(member.id)
    expect((await app.orgStore.getMembership(acme.id, member.id))?.role).toBe("member")
    expect(await linked(member.id, acme, "Linked@ACME.test")).toBe(true)
  })
})

describe("an IdP asserting an address of a domain another organization verified creates no account under that address", () => {
  it("globex's IdP cannot mint a user holding an acme address nobody has used yet", async () => {
    const { session } = await ssoAs(globex, "newhire@acme.test")
    expect(await app.adapter.getUserByEmail!("newhire@acme.test")).toBeNull()
    expect(session?.user?.email).not.toBe("newhire@acme.test")
  })
})

describe("an IdP's groups never make or unmake an owner", () => {
  it("a rule giving owner is refused when a connection is created or changed", async () => {
    const b = await app.signedIn({ email: acme.owner.email, password: "correct horse battery staple" })
    const created = await app.manage(b, "POST", `organizations/${acme.id}/connections`, {
      kind: "saml",
      name: "Evil",
      saml: { idpEntityId: "https://idp.evil.example", ssoUrl: "https://idp.evil.example/sso", certificates: [acme.idp.certificate] },
      roleRules: [{ claim: "groups", value: "everyone", role: "owner" }],
    })
    expect(created.status).toBe(422)
    const asDefault = await app.manage(b, "POST", `organizations/${acme.id}/connections/${acme.connection.id}`, { defaultRole: "owner" })
    expect(asDefault.status).toBe(422)
    const asRule = await app.manage(b, "POST", `organizations/${acme.id}/connections/${acme.connection.id}`, { roleRules: [{ claim: "groups", value: "x", role: "owner" }] })
    expect(asRule.status).toBe(422)
    expect((await app.store.getConnection(acme.connection.id))?.defaultRole).toBe("member")
  })

  it("an owner signing in through SSO with groups mapped to member stays owner", async () => {
    await app.store.updateConnection({ ...(await app.store.getConnection(acme.connection.id))!, roleRules: [{ claim: "groups", value: "staff", role: "member" }, { claim: "groups", value: "admins", role: "admin" }] })
    const boss = await app.passwordUser("boss@acme.test")
    await app.orgStore.addMember({ organizationId: acme.id, userId: boss.id, role: "owner", createdAt: new Date() })
    const { userId } = await ssoAs(acme, boss.email, { groups: ["staff"] })
    expect(userId).toBe(boss.id)
    expect((await app.orgStore.getMembership(acme.id, boss.id))?.role).toBe("owner")
    await ssoAs(acme, boss.email, { groups: ["admins"] })
    expect((await app.orgStore.getMembership(acme.id, boss.id))?.role).toBe("owner")
  })

  it("a group named owner gives nothing above the rules' roles", async () => {
    const { userId } = await ssoAs(acme, "climber@acme.test", { groups: ["owner", "owners", "Owner"], role: ["owner"] })
    expect(userId).not.toBeNull()
    expect((await app.orgStore.getMembership(acme.id, userId!))?.role).toBe("member")
  })
})

describe("a disabled connection", () => {
  it("starts no sign-in and accepts no response, even one for a request made while it was enabled", async () => {
    const conn = { ...acme.connection, id: "conn-acme-off", name: "Off" }
    await app.store.createConnection(conn)
    const b = app.browser()
    const requestId = await app.startSaml(b, conn)
    await app.store.updateConnection({ ...conn, enabled: false })
    const form = app.acsForm(acme.idp, conn, requestId, { nameId: "off@acme.test", attributes: { mail: ["off@acme.test"] } })
    const posted = await app.postAcs(b, conn.id, form)
    expect(posted.status).toBe(404)
    expect(b.sessionCookie()).toBeUndefined()
    expect(await app.adapter.getUserByEmail!("off@acme.test")).toBeNull()
    const started = await b.request("/auth/sso/start", { form: { connection: conn.id, csrfToken: await b.csrfToken() } })
    expect(started.status).toBe(404)
    expect((await b.request(`/auth/sso/saml/${conn.id}`)).status).toBe(404)
  })
})
