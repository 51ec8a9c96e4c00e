/**
 * The attacker against the SSO extension's gate now asked BEFORE a sign-in writes anything
 * (core commit fee586c3): someone holding a mailbox, a password, a passkey, an OAuth account
 * or another organization's IdP for an address of a domain whose organization requires SSO.
 *
 * 1. Spellings of the address (uppercase, trailing dot, `+tag`, full-width letters, the
 *    ideographic full stop, IDN in Unicode and in punycode, quoted local parts, a second `@`,
 *    whitespace, subdomains, look-alikes, invisible characters), through the email link, the
 *    password sign-up, the passkey sign-up, an OAuth first sign-in and credentials with
 *    database sessions: an address of the domain is refused with nothing created, and no
 *    spelling ever gets a user created and then refused (the pre-creation ask and the
 *    session's ask agree).
 * 2. Another organization's SAML and OIDC (a real `oidc-provider`) connections asserting an
 *    address of the domain: no user, no account, no session.
 * 3. Linking: an OAuth account linked to a signed-in SSO user of the domain, and
 *    `allowDangerousEmailAccountLinking` onto a verified user of the domain: nothing linked.
 * 4. Enumeration: known and unknown addresses of the domain answered alike.
 * 5. Fail closed: the SSO store failing or hanging at the pre-creation ask.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Credentials from "@portcullis/core/providers/credentials"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { organizations } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import { Browser, SECRET, direct } from "../../../core/test/helpers.js"
import { signInThrough, useFakeOP } from "../../../core/test/oauth/flow.js"
import { throughProvider } from "../../../core/test/oauth/real-op.js"
import { LIGHT, mailQueue } from "../../../core/test/password/support.js"
import { ORIGIN, PasskeyBrowser, authenticators } from "../../../core/test/webauthn/support.js"
import { SoftCredential } from "../../../core/test/webauthn/soft-authenticator.js"
import { sso } from "../../src/index.js"
import { memorySsoStore } from "../../src/memory.js"
import { oidcRedirectUri } from "../../src/oidc.js"
import type { Connection, SsoStore } from "../../src/store/types.js"
import { listenOidcIdp, type OidcIdp } from "../e2e/oidc-idp.js"
import { assembledApp, noStack, type App, type Tenant } from "./app.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
const ORG = "org-secure"

/**
 * Spellings that are addresses of a domain requiring SSO (`secure.test`, or the IDN
 * `bücher.test` claimed as `xn--bcher-kva.test`): each must be refused, whatever kind of
 * sign-in, with nothing created (or refused by the address check before anything).
 */
const OF_THE_DOMAIN = [
  "Ada@SECURE.TEST",
  "ada@secure.test.",
  "ada+tag@secure.test",
  "ada@\uff53\uff45\uff43\uff55\uff52\uff45.test", // full-width "secure"
  "ada@secure\u3002test", // ideographic full stop
  "  ada@secure.test  ",
  '"a@b"@secure.test',
  "a@b@secure.test",
  "ada@bücher.test",
  "ada@xn--bcher-kva.test",
  "ADA@BÜCHER.TEST",
]

/**
 * Spellings that are NOT addresses of a claimed domain as the gate reads them (a subdomain is
 * claimed on its own, a Cyrillic look-alike is another domain, the last `@` names the domain,
 * invisible characters leave no claimable domain): allowed or refused, but consistently.
 */
const OTHERS = ["ada@eng.secure.test", "ada@secure.t\u0435st", "ada@secure.test@evil.test", "ada@secure.te\u00adst", "ada@secure.test\u200b"]

/** An in-process app with the organizations and SSO extensions, `secure.test` and `bücher.test` verified and requiring SSO. */
async function ssoApp(providers: AuthConfig["providers"], extra: Partial<AuthConfig> = {}, store: SsoStore = memorySsoStore()) {
  const adapter = MemoryAdapter()
  const orgStore = memoryOrganizationStore()
  const backing = store
  const created: string[] = []
  const linked: string[] = []
  await orgStore.createOrganization({ id: ORG, name: "Secure", slug: "secure", metadata: null, createdAt: new Date() }, { organizationId: ORG, userId: "user-owner", role: "owner", createdAt: new Date() })
  for (const domain of ["secure.test", "xn--bcher-kva.test"]) {
    await backing.claimDomain({ domain, organizationId: ORG, token: "secure-verification-token", verifiedAt: null, requireSso: false, connectionId: null, createdAt: new Date() })
    await backing.verifyDomain(domain, ORG, new Date())
    await backing.updateDomain(domain, ORG, { requireSso: true })
  }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    rateLimit: false,
    logger: quiet,
    providers,
    extensions: [organizations({ store: orgStore }), sso({ store, organizations: orgStore, dns: { check: async () => "not-found" } })],
    events: {
      createUser: ({ user }) => void created.push(user.email ?? ""),
      linkAccount: ({ account }) => void linked.push(account.provider),
    },
    ...extra,
  }
  return { adapter, config, created, linked, browser: () => new Browser(direct(config), ORIGIN) }
}

/** The stored users (the memory adapter's scan). */
async function users(adapter: Adapter): Promise<{ id: string; email: string }[]> {
  return (await (adapter as any).listUsers({ limit: 1000 })).users
}

const hasSession = (b: Browser) => [...b.jar.keys()].some((name) => name.includes("session-token"))
const errorOf = (r: Response) => {
  const location = r.headers.get("location")
  return location ? new URL(location, ORIGIN).searchParams.get("error") : null
}

/**
 * The invariant of one attempt: signed in ⇔ a user exists and was created (or found) for it;
 * refused ⇒ nothing created by it. `mustRefuse`: an address of the domain.
 */
async function expectConsistent(label: string, outcome: { signedIn: boolean; createdBefore: number; createdAfter: number; usersBefore: number; usersAfter: number }, mustRefuse: boolean) {
  if (!outcome.signedIn) {
    // Refused (or the address refused): nothing left behind by it.
    expect(outcome.createdAfter, `${label}: createUser fired for a refused sign-in`).toBe(outcome.createdBefore)
    expect(outcome.usersAfter, `${label}: a user left behind by a refused sign-in`).toBe(outcome.usersBefore)
  }
  if (mustRefuse) expect(outcome.signedIn, `${label}: an address of the domain signed in`).toBe(false)
}

describe("spellings of an address of a domain requiring SSO, at the pre-creation ask", () => {
  const holder = useFakeOP()

  it("through the email link: refused (or the address refused) with no mail and no user; other spellings consistent", async () => {
    const mails = new Map<string, string>()
    const app = await ssoApp([Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false, sendVerificationRequest: async ({ identifier, url }) => void mails.set(identifier, url) })])
    for (const spelled of [...OF_THE_DOMAIN, ...OTHERS]) {
      const mustRefuse = OF_THE_DOMAIN.includes(spelled)
      const b = app.browser()
      const before = { createdBefore: app.created.length, usersBefore: (await users(app.adapter)).length, mails: mails.size }
      const requested = await b.request("/auth/signin/email", { form: { email: spelled, csrfToken: await b.csrfToken() } })
      expect(requested.status, spelled).toBeLessThan(500)
      if (mustRefuse) expect(mails.size, `${spelled}: a link was mailed`).toBe(before.mails)
      const mailed = mails.size > before.mails ? [...mails.values()].at(-1)! : null
      if (mailed) await b.request(new URL(mailed).pathname + new URL(mailed).search)
      await expectConsistent(`email ${JSON.stringify(spelled)}`, { ...before, signedIn: hasSession(b), createdAfter: app.created.length, usersAfter: (await users(app.adapter)).length }, mustRefuse)
      if (mustRefuse && errorOf(requested) !== "AccountSuspended") {
        // Refused by the address check before the gate: the spelling is no address at all.
        expect(errorOf(requested), spelled).not.toBeNull()
      }
    }
    // The exactly-spelled addresses of the domain reach the gate and are refused by it.
    for (const spelled of ["Ada@SECURE.TEST", "ada+tag@secure.test", "ada@bücher.test", "ada@xn--bcher-kva.test"]) {
      const b = app.browser()
      expect(errorOf(await b.request("/auth/signin/email", { form: { email: spelled, csrfToken: await b.csrfToken() } })), spelled).toBe("AccountSuspended")
    }
  })

  it("through the password sign-up: refused with no user and no mail", async () => {
    const mails: string[] = []
    const queue = mailQueue()
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) })
    const app = await ssoApp([Password({ waitUntil: queue.waitUntil, mailer, hashing: LIGHT })], { trustHost: false, trustedOrigins: [ORIGIN] })
    const transport = queue.settling(direct(app.config))
    for (const spelled of OF_THE_DOMAIN) {
      const b = new Browser(transport, ORIGIN)
      const before = { createdBefore: app.created.length, usersBefore: (await users(app.adapter)).length }
      const response = await b.request("/auth/password/signup", { form: { email: spelled, password: "violet tractor sandwich orbit", csrfToken: await b.csrfToken() } })
      expect(response.status, spelled).toBe(302)
      expect(errorOf(response), spelled).not.toBeNull()
      await expectConsistent(`password ${JSON.stringify(spelled)}`, { ...before, signedIn: false, createdAfter: app.created.length, usersAfter: (await users(app.adapter)).length }, true)
    }
    expect(mails).toEqual([])
    expect(app.created).toEqual([])
  })

  it("through the passkey sign-up: refused with no user and no passkey", async () => {
    const app = await ssoApp([Passkey], { experimental: { enableWebAuthn: true } })
    for (const spelled of OF_THE_DOMAIN) {
      const b = new PasskeyBrowser(direct(app.config), ORIGIN)
      const before = { createdBefore: app.created.length, usersBefore: (await users(app.adapter)).length }
      const { body } = await b.options({ action: "register", email: spelled })
      if (body?.action !== "register") {
        // The address check refused the spelling before any ceremony: nothing to register.
        continue
      }
      const response = await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options))
      expect(errorOf(response), spelled).toBe("AccountSuspended")
      await expectConsistent(`passkey ${JSON.stringify(spelled)}`, { ...before, signedIn: hasSession(b), createdAfter: app.created.length, usersAfter: (await users(app.adapter)).length }, true)
    }
    expect(app.created).toEqual([])
    expect(app.linked).toEqual([])
  })

  it("through an OAuth first sign-in (the provider vouching for the spelled address): refused with no user and no account; others consistent", async () => {
    const fake = { id: "fake", name: "Fake", type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    const app = await ssoApp([fake])
    for (const [i, spelled] of [...OF_THE_DOMAIN, ...OTHERS].entries()) {
      const mustRefuse = OF_THE_DOMAIN.includes(spelled)
      holder.op.user = { sub: `sub-${i}`, email: spelled, email_verified: true, name: "Ada" }
      const b = app.browser()
      const before = { createdBefore: app.created.length, usersBefore: (await users(app.adapter)).length }
      const response = await signInThrough(b, "fake")
      expect(response.status, spelled).toBeLessThan(500)
      await expectConsistent(`oauth ${JSON.stringify(spelled)}`, { ...before, signedIn: hasSession(b), createdAfter: app.created.length, usersAfter: (await users(app.adapter)).length }, mustRefuse)
      if (mustRefuse) {
        expect(errorOf(response), spelled).toBe("AccountSuspended")
        expect(await app.adapter.getUserByAccount!({ provider: "fake", providerAccountId: `sub-${i}` }), spelled).toBeNull()
      }
    }
    expect(app.linked.length).toBe(app.created.length)
  })

  it("through credentials with database sessions (authorize() naming the spelled address): refused with no user", async () => {
    const app = await ssoApp([
      Credentials({
        credentials: { email: {} },
        authorize: async ({ email }) => ({ id: `user-${Buffer.from(String(email)).toString("hex").slice(0, 40)}`, email: String(email), name: "Ada" }),
      }),
    ])
    for (const spelled of [...OF_THE_DOMAIN, ...OTHERS]) {
      const mustRefuse = OF_THE_DOMAIN.includes(spelled)
      const b = app.browser()
      const before = { createdBefore: app.created.length, usersBefore: (await users(app.adapter)).length }
      const response = await b.request("/auth/callback/credentials", { form: { email: spelled, csrfToken: await b.csrfToken() } })
      expect(response.status, spelled).toBe(302)
      await expectConsistent(`credentials ${JSON.stringify(spelled)}`, { ...before, signedIn: hasSession(b), createdAfter: app.created.length, usersAfter: (await users(app.adapter)).length }, mustRefuse)
      if (mustRefuse) expect(errorOf(response), spelled).toBe("AccountSuspended")
    }
  })
})

describe("enumeration through the SSO gate's pre-creation ask", () => {
  it("the email link and the password sign-up answer a known and an unknown address of the domain alike", async () => {
    const mails: string[] = []
    const queue = mailQueue()
    const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) })
    const app = await ssoApp(
      [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ identifier }) => void mails.push(identifier) }), Password({ waitUntil: queue.waitUntil, mailer, hashing: LIGHT })],
      { trustHost: false, trustedOrigins: [ORIGIN] },
    )
    await app.adapter.createUser!({ id: "user-known", email: "known@secure.test", emailVerified: new Date(), name: "Known", image: null })
    const transport = queue.settling(direct(app.config))
    async function seen(path: string, fields: Record<string, string>) {
      const b = new Browser(transport, ORIGIN)
      const response = await b.request(path, { form: { ...fields, csrfToken: await b.csrfToken() } })
      return { status: response.status, location: response.headers.get("location"), cookies: b.lastSetCookies.map((c) => c.name).sort(), body: await response.text() }
    }
    for (const [path, extra] of [["/auth/signin/email", {}], ["/auth/password/signup", { password: "violet tractor sandwich orbit" }]] as const) {
      const known = await seen(path, { email: "known@secure.test", ...extra })
      const unknown = await seen(path, { email: "nobody@secure.test", ...extra })
      expect(known, path).toEqual(unknown)
      expect(errorOf(new Response(null, { status: 302, headers: { location: known.location! } })), path).toBe("AccountSuspended")
    }
    expect(mails).toEqual([])
    expect(await app.adapter.getUserByEmail!("nobody@secure.test")).toBeNull()
  })
})

describe("the SSO store failing or hanging at the pre-creation ask", () => {
  const holder = useFakeOP()

  /** The memory store with `getDomain` failing or hanging while `mode.now` says so. */
  function breakable(mode: { now: "ok" | "fail" | "hang" }): SsoStore {
    const store = memorySsoStore()
    return new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver)
        if (name !== "getDomain" || typeof value !== "function") return value
        return (...args: unknown[]) => {
          if (mode.now === "fail") return Promise.reject(new Error("getDomain: connect ECONNREFUSED 10.0.0.7:5432"))
          if (mode.now === "hang") return new Promise(() => {})
          return value.apply(target, args)
        }
      },
    })
  }

  for (const failure of ["fail", "hang"] as const) {
    it(`(${failure}) mails no link and creates no OAuth user: the outage's answer, never a 500 with a stack`, async () => {
      const mode = { now: "ok" as "ok" | "fail" | "hang" }
      const links: string[] = []
      const fake = { id: "fake", name: "Fake", type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
      const app = await ssoApp([Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) }), fake], { adapterTimeout: 300 }, breakable(mode))
      mode.now = failure
      const b = app.browser()
      const requested = await b.request("/auth/signin/email", { form: { email: "ada@secure.test", csrfToken: await b.csrfToken() } })
      expect(noStack(await requested.text())).toBe(true)
      expect(errorOf(requested)).toBe("ServiceUnavailable")
      expect(links).toEqual([])

      holder.op.user = { sub: "sub-outage", email: "outage@secure.test", email_verified: true, name: "Outage" }
      const oauth = app.browser()
      const answer = await signInThrough(oauth, "fake")
      expect(noStack(await answer.text())).toBe(true)
      expect(errorOf(answer)).toBe("ServiceUnavailable")
      expect(await users(app.adapter)).toEqual([])
      expect(app.created).toEqual([])
      expect(hasSession(oauth)).toBe(false)
    })
  }
})

describe("the assembled app (real HTTP server, signed SAML responses)", () => {
  const holder = useFakeOP()
  let app: App
  let secure: Tenant
  let other: Tenant
  let idp: OidcIdp
  let oidcConnection: Connection

  beforeAll(async () => {
    app = await assembledApp()
    // Before the app's first request: the configuration is read then.
    const base = { type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true }
    app.config.providers.push({ ...base, id: "fake", name: "Fake" } as OAuthConfig<any>, { ...base, id: "fake-danger", name: "Fake (dangerous linking)", allowDangerousEmailAccountLinking: true } as OAuthConfig<any>)
    secure = await app.tenant("secure", "secure.test", { requireSso: true })
    other = await app.tenant("other", "other.test")
    // Another organization's OIDC connection, at a real oidc-provider whose person has an address of secure.test.
    idp = await listenOidcIdp([{ login: "demo", email: "Ada@SECURE.test.", name: "Ada", groups: [] }])
    oidcConnection = { id: "conn-other-oidc", organizationId: other.id, kind: "oidc", name: "Other OIDC", enabled: true, oidc: { issuer: idp.issuer, clientId: "other", clientSecret: "other's client secret" }, roleRules: [], defaultRole: "member", createdAt: new Date() }
    await app.store.createConnection(oidcConnection)
    await idp.register({ clientId: "other", clientSecret: "other's client secret", redirectUri: oidcRedirectUri(app.authUrl, oidcConnection) })
  })
  afterAll(async () => {
    await idp?.close()
    await app?.close()
  })

  const auditCreated = () => app.audit.filter((e) => e.type === "accountLinked").length

  it("another organization's SAML connection asserting spelled addresses of the domain: no user, no account, no session", async () => {
    const linkedBefore = auditCreated()
    for (const [i, mail] of ["ada@secure.test", "ADA@Secure.Test", "ada@secure.test.", "ada+x@secure.test", "ada@\uff53\uff45\uff43\uff55\uff52\uff45.test", '"ada"@secure.test', "x@y@secure.test"].entries()) {
      const b = app.browser()
      const requestId = await app.startSaml(b, other.connection)
      const answer = await app.postAcs(b, other.connection.id, app.acsForm(other.idp, other.connection, requestId, { nameId: `spelled-${i}`, attributes: { mail: [mail] } }))
      expect(answer.status, mail).toBeLessThan(500)
      expect(noStack(await answer.text()), mail).toBe(true)
      expect(b.sessionCookie(), mail).toBeUndefined()
      expect(await app.adapter.getUserByAccount!({ provider: `sso:${other.connection.id}`, providerAccountId: `spelled-${i}` }), mail).toBeNull()
      expect(await app.adapter.getUserByEmail!(mail.trim().toLowerCase()), mail).toBeNull()
    }
    expect(auditCreated()).toBe(linkedBefore)
  })

  it("another organization's OIDC connection (a real oidc-provider) asserting an address of the domain: no user, no account, no session", async () => {
    const b = app.browser()
    const csrfToken = await b.csrfToken()
    const started = await b.request("/auth/sso/start", { form: { connection: oidcConnection.id, csrfToken } })
    expect(started.status).toBe(302)
    const callback = await throughProvider(new URL(started.headers.get("location")!), app.server.origin)
    const answer = await b.request(callback.pathname + callback.search)
    expect(answer.status).toBeLessThan(500)
    expect(noStack(await answer.text())).toBe(true)
    expect(b.sessionCookie()).toBeUndefined()
    expect(await b.session()).toBeNull()
    expect(await app.adapter.getUserByEmail!("ada@secure.test.")).toBeNull()
    expect(await app.adapter.getUserByEmail!("ada@secure.test")).toBeNull()
    expect(await app.adapter.getUserByAccount!({ provider: `sso:${oidcConnection.id}`, providerAccountId: `${idp.issuer}#demo` })).toBeNull()
  })

  it("an OAuth account linked to a signed-in SSO user of the domain: AccountSuspended, nothing linked", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, secure.connection)
    await app.postAcs(b, secure.connection.id, app.acsForm(secure.idp, secure.connection, requestId, { nameId: "linker", attributes: { mail: ["linker@secure.test"] } }))
    expect((await b.session())?.user?.email).toBe("linker@secure.test")
    holder.op.user = { sub: "linker-at-fake", email: "linker@elsewhere.test", email_verified: true, name: "Linker" }
    const answer = await signInThrough(b, "fake")
    expect(errorOf(answer)).toBe("AccountSuspended")
    expect(await app.adapter.getUserByAccount!({ provider: "fake", providerAccountId: "linker-at-fake" })).toBeNull()
    expect(await app.adapter.getUserByEmail!("linker@elsewhere.test")).toBeNull()
  })

  it("allowDangerousEmailAccountLinking onto a verified user of the domain: AccountSuspended, nothing linked, no session", async () => {
    const user = await app.adapter.createUser!({ id: "user-dangerous", email: "dangerous@secure.test", emailVerified: new Date(), name: "D" })
    holder.op.user = { sub: "dangerous-at-fake", email: "dangerous@secure.test", email_verified: true, name: "D" }
    const b = app.browser()
    const answer = await signInThrough(b, "fake-danger")
    expect(errorOf(answer)).toBe("AccountSuspended")
    expect(await app.adapter.getUserByAccount!({ provider: "fake-danger", providerAccountId: "dangerous-at-fake" })).toBeNull()
    expect(await app.adapter.getUserByEmail!("dangerous@secure.test")).toMatchObject({ id: user.id })
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("the domain's own connection still creates and signs in its people (control)", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, secure.connection)
    await app.postAcs(b, secure.connection.id, app.acsForm(secure.idp, secure.connection, requestId, { nameId: "fresh-own", attributes: { mail: ["fresh-own@secure.test"] } }))
    expect((await b.session())?.user?.email).toBe("fresh-own@secure.test")
    expect(await app.adapter.getUserByAccount!({ provider: `sso:${secure.connection.id}`, providerAccountId: "fresh-own" })).toMatchObject({ email: "fresh-own@secure.test" })
  })
})
