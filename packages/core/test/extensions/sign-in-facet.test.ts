/**
 * `req.signIn(identity)`: a session for an identity an extension verified (an SSO
 * assertion), by the OAuth linking rules with the extension — not a provider flag — vouching
 * for the address (sign-in.ts's module comment): a new user only for a vouched-for address,
 * linked to a verified owner, replacing an unverified one (T67), refused otherwise; the app's
 * `signIn` callback and the extensions' gates asked; two-factor honoured; one user for 50
 * concurrent first sign-ins (in one process, and across two processes on one PostgreSQL);
 * a store outage a 503 with nothing half-written.
 */
import { fork, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { defineExtension, type ExtensionIdentity, type ExtensionSignInOutcome } from "@portcullis/core/extension"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"
import { totpCode } from "@portcullis/core/two-factor"
import { enroll, secondFactor } from "../two-factor/support.js"
import { postgresGate } from "../postgres-gate.js"
import { identity, SSO_PROVIDER, ssoExtension } from "./sso-probe.js"

const { service, postgres } = await postgresGate()

const ORIGIN = "http://localhost:3000"
const PROVIDER = SSO_PROVIDER

/** The memory adapter, with switches: every call fails while `down`, or only `linkAccount` while `linkDown`. */
function switchable() {
  const memory = MemoryAdapter()
  const state = { down: false, linkDown: false, memory, adapter: {} as Adapter }
  for (const [name, fn] of Object.entries(memory)) {
    ;(state.adapter as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      if (state.down || (state.linkDown && name === "linkAccount")) throw new Error(`${name}: connect ECONNREFUSED 127.0.0.1:5432 password=hunter2`)
      return (fn as (...a: unknown[]) => unknown).apply(memory, args)
    }
  }
  return state
}

function app(extra: Partial<AuthConfig> = {}, strategy: "jwt" | "database" = "database") {
  const store = switchable()
  const outcomes: ExtensionSignInOutcome[] = []
  const log = captureLogger()
  const config = credentialsConfig({ adapter: store.adapter, session: { strategy }, extensions: [ssoExtension(outcomes)], logger: log.logger, adapterTimeout: 1_000, ...extra })
  const browser = () => new Browser(direct(config), ORIGIN)
  /** The IdP's post of `id` to the ACS, in `b`. */
  const assert = (b: Browser, id: ExtensionIdentity) => b.request("/auth/sso/acs", { json: id, headers: { origin: "https://idp.example" } })
  return { config, store, memory: store.memory, outcomes, log, browser, assert }
}

const accountOf = (memory: ReturnType<typeof MemoryAdapter>, id = "nameid-ada") => memory.getUserByAccount!({ provider: PROVIDER, providerAccountId: id })

describe.each(["database", "jwt"] as const)("a first sign-in of a vouched-for address (%s sessions)", (strategy) => {
  it("creates a verified user, links the account, and the session is usable", async () => {
    const { memory, outcomes, browser, assert } = app({}, strategy)
    const b = browser()
    const response = await assert(b, identity())
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(ORIGIN)
    const [outcome] = outcomes
    expect(outcome).toMatchObject({ isNewUser: true, refused: null, userId: expect.any(String) })
    const user = await accountOf(memory)
    expect(user).toMatchObject({ id: outcome!.userId, email: "ada@acme.com", name: "Ada", emailVerified: expect.any(Date) })
    const session = await b.session()
    expect(session.user.email).toBe("ada@acme.com")
    // The key the sign-in reported is the one the extension sees on the next request.
    const me = await (await b.request("/auth/sso/me")).json()
    expect(me.userId).toBe(user!.id)
    expect(outcome!.session).toMatchObject({ userId: user!.id, key: me.key, expires: expect.any(Date) })
  })

  it("signs the same user in again by the account, not as new", async () => {
    const { memory, outcomes, browser, assert } = app({}, strategy)
    await assert(browser(), identity())
    // The address changed at the IdP: the account, not the address, finds the user.
    await assert(browser(), identity({ email: "ada.lovelace@acme.com" }))
    expect(outcomes.map((o) => o.isNewUser)).toEqual([true, false])
    expect(outcomes[1]!.userId).toBe(outcomes[0]!.userId)
    expect((await accountOf(memory))!.id).toBe(outcomes[0]!.userId)
  })

  it("lands on the identity's callbackUrl through the redirect callback", async () => {
    const { assert, browser } = app({}, strategy)
    expect((await assert(browser(), identity({ callbackUrl: "/dashboard" }))).headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    expect((await assert(browser(), identity({ callbackUrl: "https://evil.example/x" }))).headers.get("location")).toBe(ORIGIN)
  })
})

describe("an address that belongs to a user", () => {
  it("links the account to a verified owner", async () => {
    const { memory, outcomes, browser, assert } = app()
    const owner = await memory.createUser!({ id: "owner", email: "ada@acme.com", emailVerified: new Date(), name: "Ada L." })
    const b = browser()
    await assert(b, identity())
    expect(outcomes[0]).toMatchObject({ userId: owner.id, isNewUser: false, refused: null })
    expect((await accountOf(memory))!.id).toBe("owner")
    expect((await b.session()).user.email).toBe("ada@acme.com")
  })

  it("replaces an owner whose address was never verified (T67): the old user is gone", async () => {
    const { memory, outcomes, browser, assert } = app()
    await memory.createUser!({ id: "squatter", email: "ada@acme.com", emailVerified: null, name: "Squatter" })
    await assert(browser(), identity())
    const user = await accountOf(memory)
    expect(user).toMatchObject({ email: "ada@acme.com", emailVerified: expect.any(Date) })
    expect(user!.id).not.toBe("squatter")
    expect(await memory.getUser!("squatter")).toBeNull()
    expect(outcomes[0]).toMatchObject({ userId: user!.id, isNewUser: true })
  })

  it("is refused with OAuthAccountNotLinked when the extension does not vouch, and nothing is linked", async () => {
    const { memory, outcomes, browser, assert } = app()
    await memory.createUser!({ id: "owner", email: "ada@acme.com", emailVerified: new Date() })
    const b = browser()
    const response = await assert(b, identity({ emailVerified: false }))
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`)
    expect(outcomes[0]).toMatchObject({ refused: "OAuthAccountNotLinked", userId: null, session: null })
    expect(await accountOf(memory)).toBeNull()
    expect(await b.session()).toBeNull()
  })
})

describe("an address nobody vouches for, and no owner", () => {
  it("makes no user: AccessDenied (the error page, as an OAuth AccessDenied)", async () => {
    const { memory, outcomes, browser, assert } = app()
    const b = browser()
    const response = await assert(b, identity({ emailVerified: false }))
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
    expect(outcomes[0]).toMatchObject({ refused: "AccessDenied", userId: null })
    expect(await memory.getUserByEmail!("ada@acme.com")).toBeNull()
    expect(await accountOf(memory)).toBeNull()
    expect(await b.session()).toBeNull()
  })

  it.each([["the string \"false\"", "false"], ["1", 1], ["the string \"true\"", "true"]])("emailVerified as %s does not vouch: AccessDenied", async (_name, value) => {
    const { memory, outcomes, browser, assert } = app()
    await assert(browser(), identity({ emailVerified: value as never }))
    expect(outcomes[0]!.refused).toBe("AccessDenied")
    expect(await memory.getUserByEmail!("ada@acme.com")).toBeNull()
  })

  it("without an address at all: AccessDenied too", async () => {
    const { memory, outcomes, browser, assert } = app()
    await assert(browser(), identity({ email: undefined }))
    expect(outcomes[0]!.refused).toBe("AccessDenied")
    expect(await accountOf(memory)).toBeNull()
  })
})

describe("the app's signIn callback and the sign-in gates", () => {
  it("a callback returning false refuses (AccessDenied) before any user is made", async () => {
    const seen: unknown[] = []
    const { memory, outcomes, browser, assert } = app({ callbacks: { signIn: ({ user, account, profile }) => (seen.push({ user, account, profile }), false) } })
    const response = await assert(browser(), identity())
    expect(response.headers.get("location")).toMatch(/error=AccessDenied/)
    expect(outcomes[0]!.refused).toBe("AccessDenied")
    expect(await memory.getUserByEmail!("ada@acme.com")).toBeNull()
    expect(seen[0]).toMatchObject({ account: { provider: PROVIDER, providerAccountId: "nameid-ada", type: "saml" }, profile: { department: "R&D", email: "ada@acme.com" } })
  })

  it("a callback returning a URL sends the browser there, with no session", async () => {
    const { outcomes, browser, assert } = app({ callbacks: { signIn: () => "/onboarding" } })
    const b = browser()
    const response = await assert(b, identity())
    expect(response.headers.get("location")).toBe(`${ORIGIN}/onboarding`)
    expect(outcomes[0]).toMatchObject({ session: null, userId: null })
    expect(await b.session()).toBeNull()
  })

  it("an extension's gate refusing is AccountSuspended", async () => {
    const store = switchable()
    const outcomes: ExtensionSignInOutcome[] = []
    const suspended = defineExtension({ id: "admin", signInGate: ({ email }) => (email === "ada@acme.com" ? { refuse: "suspended by an admin" } : undefined) })
    const config = credentialsConfig({ adapter: store.adapter, extensions: [ssoExtension(outcomes), suspended], logger: captureLogger().logger })
    const b = new Browser(direct(config), ORIGIN)
    const response = await b.request("/auth/sso/acs", { json: identity() })
    expect(response.headers.get("location")).toMatch(/error=AccountSuspended/)
    expect(outcomes[0]).toMatchObject({ refused: "AccountSuspended", session: null })
    expect(await b.session()).toBeNull()
  })
})

describe("an identity the extension got wrong", () => {
  it.each([
    ["a configured provider's id", identity({ provider: "credentials" }), /provider id "credentials"/],
    ["no providerAccountId", identity({ providerAccountId: "" }), /malformed identity/],
    ["another type", identity({ type: "oauth" as never }), /malformed identity/],
  ])("%s is InvalidConfig: a 500, logged, nothing written", async (_name, bad, message) => {
    const { memory, log, browser, assert } = app()
    const response = await assert(browser(), bad)
    expect(response.status).toBe(500)
    expect(log.lines.join("\n")).toMatch(message)
    expect(log.lines.join("\n")).toMatch(/InvalidConfig/)
    expect(await memory.getUserByEmail!("ada@acme.com")).toBeNull()
  })
})

describe("a configuration without an adapter", () => {
  it("cannot keep SSO users: MissingAdapter, a 500 logged, no session", async () => {
    const log = captureLogger()
    const b = new Browser(direct(credentialsConfig({ extensions: [ssoExtension()], logger: log.logger })), ORIGIN)
    const response = await b.request("/auth/sso/acs", { json: identity() })
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: "MissingAdapter", message: "Something went wrong" })
    expect(log.lines.join("\n")).toMatch(/MissingAdapter/)
    expect(await b.session()).toBeNull()
  })
})

describe("50 concurrent first sign-ins of one identity", () => {
  it("make one user and one account, and every browser is signed in as that user", async () => {
    const { memory, outcomes, browser, assert } = app()
    const browsers = Array.from({ length: 50 }, browser)
    const responses = await Promise.all(browsers.map((b) => assert(b, identity())))
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(302))
    const user = await accountOf(memory)
    expect(user).not.toBeNull()
    expect(new Set(outcomes.map((o) => o.userId))).toEqual(new Set([user!.id]))
    expect(outcomes.filter((o) => o.isNewUser)).toHaveLength(1)
    const sessions = await Promise.all(browsers.map((b) => b.session()))
    expect(sessions.every((s) => s?.user?.email === "ada@acme.com")).toBe(true)
  })
})

describe("50 concurrent first sign-ins over an unverified owner (T67)", () => {
  it("replace it once: one fresh user, one account, all signed in as it", async () => {
    const { memory, outcomes, browser, assert } = app()
    await memory.createUser!({ id: "squatter", email: "ada@acme.com", emailVerified: null })
    const browsers = Array.from({ length: 50 }, browser)
    const responses = await Promise.all(browsers.map((b) => assert(b, identity())))
    expect(responses.map((r) => new URL(r.headers.get("location")!).searchParams.get("error"))).toEqual(Array(50).fill(null))
    const user = await accountOf(memory)
    expect(user!.id).not.toBe("squatter")
    expect(await memory.getUser!("squatter")).toBeNull()
    expect(new Set(outcomes.map((o) => o.userId))).toEqual(new Set([user!.id]))
    const sessions = await Promise.all(browsers.map((b) => b.session()))
    expect(sessions.every((s) => s?.user?.email === "ada@acme.com")).toBe(true)
  })
})

describe("two-factor on for the user", () => {
  it("answers with the two-factor step and no session; the code then signs in, audited once as the SSO sign-in", async () => {
    const audited: { type: string; provider?: string; method?: string; details?: Record<string, unknown> }[] = []
    const { config, memory, outcomes, browser, assert } = app({ twoFactor: {}, events: { audit: (e) => void audited.push(e as never) } }, "jwt")
    await assert(browser(), identity())
    const userId = outcomes[0]!.userId!
    const { secret } = await enroll(config, userId)
    audited.length = 0
    const b = browser()
    const response = await assert(b, identity())
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).pathname).toBe("/auth/two-factor")
    expect(outcomes[1]).toMatchObject({ userId, session: null, refused: null })
    expect(await b.session()).toBeNull()
    expect((await accountOf(memory))!.id).toBe(userId)
    // Only the first factor passed: no sign-in yet in the trail.
    expect(audited.filter((e) => e.type === "signIn")).toEqual([])
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect((await b.session()).user.email).toBe("ada@acme.com")
    expect(audited.filter((e) => e.type === "signIn")).toMatchObject([{ provider: PROVIDER, method: "saml", details: { secondFactor: "totp" } }])
  })
})

describe("the audit trail", () => {
  it("records each SSO sign-in once, by its provider and type, and a refusal as signInFailed", async () => {
    const audited: { type: string; provider?: string; method?: string; reason?: string; details?: Record<string, unknown> }[] = []
    const { memory, browser, assert } = app({ events: { audit: (e) => void audited.push(e as never) } })
    await assert(browser(), identity())
    await assert(browser(), identity())
    expect(audited.filter((e) => e.type === "signIn")).toMatchObject([
      { provider: PROVIDER, method: "saml", details: { isNewUser: true } },
      { provider: PROVIDER, method: "saml", details: { isNewUser: false } },
    ])
    expect(audited.filter((e) => e.type === "accountLinked")).toHaveLength(1)
    await memory.createUser!({ id: "bob", email: "bob@acme.com", emailVerified: new Date() })
    await assert(browser(), identity({ providerAccountId: "nameid-bob", email: "bob@acme.com", emailVerified: false }))
    expect(audited.filter((e) => e.type === "signInFailed")).toMatchObject([{ provider: PROVIDER, method: "saml", reason: "OAuthAccountNotLinked" }])
  })
})

describe("the store failing", () => {
  it("is a 503 without the store's message, and no session", async () => {
    const { store, browser, assert } = app()
    store.down = true
    const b = browser()
    const response = await assert(b, identity())
    expect(response.status).toBe(503)
    const body = await response.text()
    expect(body).not.toMatch(/hunter2|ECONNREFUSED|\n\s+at /)
    store.down = false
    expect(await b.session()).toBeNull()
  })

  it("after the user was made, linking failing leaves no user without its account", async () => {
    const { store, memory, browser, assert } = app()
    store.linkDown = true
    const response = await assert(browser(), identity())
    expect(response.status).toBe(503)
    store.linkDown = false
    expect(await memory.getUserByEmail!("ada@acme.com")).toBeNull()
    // And the next attempt, the store back, signs in as a new user.
    const again = await assert(browser(), identity())
    expect(again.status).toBe(302)
    expect(await accountOf(memory)).toMatchObject({ email: "ada@acme.com" })
  })
})

postgres.describe("two instance processes on one PostgreSQL database", () => {
  const packages = fileURLToPath(new URL("../../../", import.meta.url))
  let dir: string
  let db: TestDatabase
  let children: ChildProcess[] = []
  let origins: string[] = []

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "portcullis-signin-processes-"))
    const bundle = join(dir, "instance.mjs")
    // The sources of this checkout, bundled: each child runs exactly the code under test.
    await build({
      entryPoints: [fileURLToPath(new URL("./sign-in-instance.ts", import.meta.url))],
      outfile: bundle,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      logLevel: "silent",
      alias: Object.fromEntries(["core", "sql-adapter"].map((name) => [`@portcullis/${name}`, join(packages, name, "src")])),
      external: ["pg-native"],
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    })
    db = await openTestDatabase("postgres", { url: service.url })
    children = [0, 1].map(() => fork(bundle, [JSON.stringify({ url: service.url, tables: db.tables })], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] }))
    origins = await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve, reject) => {
            child.once("exit", (code) => reject(new Error(`instance exited with ${code}`)))
            child.on("message", (message: { origin?: string }) => message.origin && resolve(message.origin))
          }),
      ),
    )
  }, 90_000)
  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.removeAllListeners("exit")
            child.once("exit", () => resolve())
            child.kill()
          }),
      ),
    )
    await db?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("50 first sign-ins of one identity, split over both, make one user and one account, and all are signed in as it", async () => {
    const browsers = Array.from({ length: 50 }, (_, i) => new Browser((request) => fetch(request, { redirect: "manual" }), origins[i % 2]!))
    const responses = await Promise.all(browsers.map((b) => b.request("/auth/sso/acs", { json: identity({ providerAccountId: "nameid-race" }) })))
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(302))
    expect(responses.map((r) => new URL(r.headers.get("location")!).searchParams.get("error"))).toEqual(Array(50).fill(null))
    const users = await db.db.selectFrom(db.tables.users).selectAll().where("email", "=", "ada@acme.com").execute()
    expect(users).toHaveLength(1)
    const accounts = await db.db.selectFrom(db.tables.accounts).selectAll().where("providerAccountId", "=", "nameid-race").execute()
    expect(accounts).toHaveLength(1)
    expect(accounts[0]!.userId).toBe(users[0]!.id)
    const seen = await Promise.all(browsers.map(async (b) => (await (await b.request("/auth/sso/me")).json()).userId))
    expect(new Set(seen)).toEqual(new Set([users[0]!.id]))
  }, 60_000)
})
