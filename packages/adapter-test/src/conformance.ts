/**
 * The adapter conformance suite: the behaviour Portcullis relies on, written as a spec.
 * Run it from any adapter's tests; each `describe` is one behaviour.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from "vitest"
import type { Adapter, AdapterAccount, AdapterTwoFactor, AdapterUser } from "@portcullis/core/adapters"
import {
  daysFromNow,
  makeAccount,
  makeAuthenticator,
  makeSession,
  makeUser,
  makeVerificationToken,
} from "./fixtures.js"
import { auditTrailSpecs } from "./audit-trail.js"

/**
 * Direct reads of the storage, bypassing the adapter. Optional; when given, the suite
 * also checks that records are really gone (not just unreachable through a join).
 * Each returns the stored record in any shape, or `null`/`undefined` when there is none.
 */
export interface RawStorage {
  user?(id: string): Promise<unknown>
  account?(provider: string, providerAccountId: string): Promise<unknown>
  session?(sessionToken: string): Promise<unknown>
  verificationToken?(identifier: string, token: string): Promise<unknown>
  authenticator?(credentialID: string): Promise<unknown>
}

/** How the suite obtains the adapter under test. */
export interface ConformanceFactory {
  /** Called once, after `setup`. */
  adapter: () => Adapter | Promise<Adapter>
  /** Runs before the first test: create tables, connect clients. */
  setup?(): Promise<void>
  /** Runs after the last test: drop what `setup` created, close clients. */
  teardown?(): Promise<void>
  db?: RawStorage
  /**
   * Specs this adapter is known not to meet, by exact spec title (e.g. `"is atomic: of 25
   * concurrent uses exactly one gets the token"`), each with the reason. Those specs are
   * registered as skipped, with the reason in their title, so the report shows what the
   * adapter does not guarantee. Empty by default: every spec runs. A title that names no
   * spec fails the suite, so a renamed spec cannot silently stop being excused.
   */
  knownLimitations?: Record<string, string>
  /**
   * Whether the adapter has the Portcullis token-refresh extensions (`getAccountByUserId`,
   * `updateAccount`, `acquireLock`, `releaseLock`, `setShared`, `getShared`); their specs run
   * only then.
   */
  tokenRefresh?: boolean
  /**
   * Whether the adapter has the Portcullis two-factor capability (`getTwoFactor`,
   * `setTwoFactor`, `deleteTwoFactor`, `useTwoFactorStep`, `useTwoFactorBackupCode`); their
   * specs run only then.
   */
  twoFactor?: boolean
  /**
   * Whether the adapter has the Portcullis password capability (`getUserPassword`,
   * `setUserPassword`) the password provider needs; its specs run only then.
   */
  passwords?: boolean
  /**
   * Whether the adapter has the Portcullis audit capability (`createAuditRecord`,
   * `listAuditRecords`, `deleteAuditRecordsBefore`); its specs run only then.
   */
  auditTrail?: boolean
}

/** The Auth.js interface's methods; the Portcullis extensions (`listSessions`, token refresh) have their own specs. */
type Method =
  | "createUser" | "getUser" | "getUserByEmail" | "getUserByAccount" | "updateUser" | "deleteUser"
  | "linkAccount" | "unlinkAccount" | "getAccount"
  | "createSession" | "getSessionAndUser" | "updateSession" | "deleteSession"
  | "createVerificationToken" | "useVerificationToken"
  | "createAuthenticator" | "getAuthenticator" | "listAuthenticatorsByUserId" | "updateAuthenticatorCounter"
const ALL_METHODS: Method[] = [
  "createUser", "getUser", "getUserByEmail", "getUserByAccount", "updateUser", "deleteUser",
  "linkAccount", "unlinkAccount", "getAccount",
  "createSession", "getSessionAndUser", "updateSession", "deleteSession",
  "createVerificationToken", "useVerificationToken",
  "createAuthenticator", "getAuthenticator", "listAuthenticatorsByUserId", "updateAuthenticatorCounter",
]

/** Optional fields may come back as `null` or be left out; both mean "absent". */
function expectAbsent(value: unknown): void {
  expect(value == null, `expected null or undefined, got ${JSON.stringify(value)}`).toBe(true)
}

/** Drops `null`/`undefined` fields so records compare equal whichever absent form a store uses. */
function present<T extends object>(record: T | null | undefined): Partial<T> | null {
  if (record == null) return null
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v != null)) as Partial<T>
}

/**
 * Registers the conformance suite for one adapter.
 *
 * @example
 * ```ts
 * import { runAdapterConformance } from "@portcullis/adapter-test"
 * import { MemoryAdapter } from "@portcullis/memory-adapter"
 *
 * runAdapterConformance("MemoryAdapter", { adapter: () => MemoryAdapter() })
 * ```
 */
export function runAdapterConformance(name: string, factory: ConformanceFactory): void {
  describe(`${name} adapter conformance`, () => {
    let adapter: Adapter
    // The suite needs every method; `a()` types them as present and the first spec fails
    // with the list when some are missing.
    const a = () => adapter as Required<Adapter>
    const raw = factory.db ?? {}
    const limitations = factory.knownLimitations ?? {}
    const excused = new Set<string>()
    // Shadows vitest's \`it\` for every spec below: a declared limitation is skipped, with why.
    const it = (title: string, body: () => Promise<void> | void) => {
      const reason = limitations[title]
      if (reason === undefined) return vitestIt(title, body)
      excused.add(title)
      return vitestIt.skip(`${title} (known limitation: ${reason})`, body)
    }

    beforeAll(async () => {
      await factory.setup?.()
      adapter = await factory.adapter()
    })
    afterAll(async () => {
      await factory.teardown?.()
    })

    async function newUser(overrides: Partial<AdapterUser> = {}): Promise<AdapterUser> {
      return a().createUser(makeUser(overrides))
    }

    describe("implements the interface", () => {
      it("has every adapter method", () => {
        const missing = ALL_METHODS.filter((m) => typeof adapter[m] !== "function")
        expect(missing).toEqual([])
      })

      it("answers every call with a promise: a failure is a rejection, never a synchronous throw", async () => {
        // Callers chain `.catch()` on every call (Auth.js's core does too); a synchronous
        // throw escapes that and surfaces as a 500 instead of the store error it is.
        const user = await newUser()
        const hostile: Record<Method, unknown[]> = {
          createUser: [makeUser({ email: user.email })],
          getUser: [crypto.randomUUID()],
          getUserByEmail: ["nobody@example.invalid"],
          getUserByAccount: [{ provider: "none", providerAccountId: "none" }],
          updateUser: [{ id: crypto.randomUUID(), name: "ghost" }],
          deleteUser: [crypto.randomUUID()],
          linkAccount: [{ userId: crypto.randomUUID(), type: "oauth", provider: "none", providerAccountId: crypto.randomUUID() }],
          unlinkAccount: [{ provider: "none", providerAccountId: "none" }],
          getAccount: ["none", "none"],
          createSession: [makeSession(user.id)],
          getSessionAndUser: [crypto.randomUUID()],
          updateSession: [{ sessionToken: crypto.randomUUID() }],
          deleteSession: [crypto.randomUUID()],
          createVerificationToken: [{ identifier: crypto.randomUUID(), token: crypto.randomUUID(), expires: daysFromNow(1) }],
          useVerificationToken: [{ identifier: "none", token: "none" }],
          createAuthenticator: [{ credentialID: crypto.randomUUID(), userId: crypto.randomUUID(), providerAccountId: "x", credentialPublicKey: "x", counter: 0, credentialDeviceType: "singleDevice", credentialBackedUp: false }],
          getAuthenticator: [crypto.randomUUID()],
          listAuthenticatorsByUserId: [crypto.randomUUID()],
          updateAuthenticatorCounter: [crypto.randomUUID(), 1],
        }
        // A missing method is the spec above's finding, not this one's.
        for (const method of ALL_METHODS.filter((m) => typeof adapter[m] === "function")) {
          let result: unknown
          expect(() => (result = (a()[method] as (...args: unknown[]) => unknown)(...hostile[method])), `${method} threw synchronously`).not.toThrow()
          expect(result, `${method} did not return a promise`).toBeInstanceOf(Promise)
          await (result as Promise<unknown>).catch(() => {})
        }
      })
    })

    describe("createUser and getUser", () => {
      it("returns the created user with its fields", async () => {
        const input = makeUser()
        const created = await a().createUser(input)
        expect(created).toMatchObject({ id: input.id, name: input.name, email: input.email, image: input.image })
        expect(created.emailVerified).toEqual(input.emailVerified)
      })

      it("reads the user back by id, with emailVerified as a Date", async () => {
        const user = await newUser()
        const found = await a().getUser(user.id)
        expect(found).toMatchObject({ id: user.id, email: user.email, name: user.name, image: user.image })
        expect(found?.emailVerified).toBeInstanceOf(Date)
        expect(found?.emailVerified?.getTime()).toBe(user.emailVerified?.getTime())
      })

      it("keeps a null emailVerified null", async () => {
        const user = await newUser({ emailVerified: null, name: null, image: null })
        const found = await a().getUser(user.id)
        expect(found?.emailVerified).toBeNull()
        expectAbsent(found?.name)
        expectAbsent(found?.image)
      })

      it("returns null for an unknown id", async () => {
        expect(await a().getUser(crypto.randomUUID())).toBeNull()
      })

      it("rejects a second user with the same email", async () => {
        const user = await newUser()
        await expect(async () => a().createUser(makeUser({ email: user.email }))).rejects.toThrow()
        expect((await a().getUserByEmail(user.email))?.id).toBe(user.id)
      })
    })

    describe("getUserByEmail", () => {
      it("finds the user by the stored email", async () => {
        const user = await newUser()
        expect((await a().getUserByEmail(user.email))?.id).toBe(user.id)
      })

      it("matches exactly: the caller normalises, the adapter does not", async () => {
        const user = await newUser()
        expect(await a().getUserByEmail(user.email.toUpperCase())).toBeNull()
        expect(await a().getUserByEmail(` ${user.email}`)).toBeNull()
      })

      it("returns null for an unknown email", async () => {
        expect(await a().getUserByEmail(`nobody.${crypto.randomUUID()}@example.com`)).toBeNull()
      })
    })

    describe("updateUser", () => {
      it("returns the merged record and persists it", async () => {
        const user = await newUser()
        const verified = new Date("2025-01-02T03:04:05.678Z")
        const updated = await a().updateUser({ id: user.id, name: "Countess", emailVerified: verified })
        expect(updated).toMatchObject({ id: user.id, email: user.email, image: user.image, name: "Countess" })
        expect(updated.emailVerified).toEqual(verified)
        const found = await a().getUser(user.id)
        expect(found).toMatchObject({ name: "Countess", email: user.email })
        expect(found?.emailVerified).toEqual(verified)
      })

      it("moves the email lookup when the email changes", async () => {
        const user = await newUser()
        const email = `new.${crypto.randomUUID()}@example.com`
        await a().updateUser({ id: user.id, email })
        expect((await a().getUserByEmail(email))?.id).toBe(user.id)
        expect(await a().getUserByEmail(user.email)).toBeNull()
      })
    })

    describe("linkAccount and getAccount", () => {
      it("round-trips every token field, expires_at as a number", async () => {
        const user = await newUser()
        const account = makeAccount(user.id)
        await a().linkAccount(account)
        const found = await a().getAccount(account.providerAccountId, account.provider)
        expect(present(found)).toMatchObject(account)
        expect(typeof found?.expires_at).toBe("number")
      })

      it("leaves optional token fields absent (null or undefined) when not given", async () => {
        const user = await newUser()
        const account: AdapterAccount = {
          userId: user.id, type: "oauth", provider: "github", providerAccountId: crypto.randomUUID(),
        }
        await a().linkAccount(account)
        const found = await a().getAccount(account.providerAccountId, account.provider)
        expect(found).toMatchObject(account)
        for (const field of ["access_token", "refresh_token", "id_token", "expires_at", "scope", "token_type", "session_state"]) {
          expectAbsent(found?.[field])
        }
      })

      it("returns null for an unknown account", async () => {
        expect(await a().getAccount(crypto.randomUUID(), "github")).toBeNull()
      })

      it("rejects linking a provider account that is already linked", async () => {
        const [owner, other] = [await newUser(), await newUser()]
        const account = makeAccount(owner.id)
        await a().linkAccount(account)
        await expect(async () => a().linkAccount({ ...account, userId: other.id })).rejects.toThrow()
        expect((await a().getUserByAccount(account))?.id).toBe(owner.id)
      })

      it("needs both provider and providerAccountId to match", async () => {
        const user = await newUser()
        const account = makeAccount(user.id, { provider: "github" })
        await a().linkAccount(account)
        expect(await a().getAccount(account.providerAccountId, "gitlab")).toBeNull()
      })
    })

    describe("getUserByAccount", () => {
      it("finds the user an account is linked to", async () => {
        const user = await newUser()
        const account = makeAccount(user.id)
        await a().linkAccount(account)
        const found = await a().getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })
        expect(found?.id).toBe(user.id)
        expect(found?.emailVerified).toBeInstanceOf(Date)
      })

      it("returns null for an unknown account", async () => {
        expect(await a().getUserByAccount({ provider: "github", providerAccountId: crypto.randomUUID() })).toBeNull()
      })

      it("keeps the same providerAccountId on different providers apart (distinct users)", async () => {
        const [alice, bob] = [await newUser(), await newUser()]
        const sharedId = crypto.randomUUID()
        await a().linkAccount(makeAccount(alice.id, { provider: "github", providerAccountId: sharedId }))
        await a().linkAccount(makeAccount(bob.id, { provider: "gitlab", providerAccountId: sharedId }))
        expect((await a().getUserByAccount({ provider: "github", providerAccountId: sharedId }))?.id).toBe(alice.id)
        expect((await a().getUserByAccount({ provider: "gitlab", providerAccountId: sharedId }))?.id).toBe(bob.id)
        expect((await a().getAccount(sharedId, "gitlab"))?.userId).toBe(bob.id)
      })
    })

    describe("unlinkAccount", () => {
      it("removes the link but not the user", async () => {
        const user = await newUser()
        const account = makeAccount(user.id)
        const key = { provider: account.provider, providerAccountId: account.providerAccountId }
        await a().linkAccount(account)
        await a().unlinkAccount(key)
        expect(await a().getUserByAccount(key)).toBeNull()
        expect(await a().getAccount(key.providerAccountId, key.provider)).toBeNull()
        expect((await a().getUser(user.id))?.id).toBe(user.id)
        if (raw.account) expectAbsent(await raw.account(key.provider, key.providerAccountId))
      })

      it("leaves the user's other accounts linked", async () => {
        const user = await newUser()
        const [first, second] = [makeAccount(user.id), makeAccount(user.id, { provider: "google" })]
        await a().linkAccount(first)
        await a().linkAccount(second)
        await a().unlinkAccount({ provider: first.provider, providerAccountId: first.providerAccountId })
        const stillLinked = await a().getUserByAccount({ provider: second.provider, providerAccountId: second.providerAccountId })
        expect(stillLinked?.id).toBe(user.id)
      })
    })

    describe("createSession and getSessionAndUser", () => {
      it("returns the created session with expires as a Date", async () => {
        const user = await newUser()
        const input = makeSession(user.id)
        const session = await a().createSession(input)
        expect(session).toMatchObject({ sessionToken: input.sessionToken, userId: user.id })
        expect(session.expires).toBeInstanceOf(Date)
        expect(session.expires.getTime()).toBe(input.expires.getTime())
      })

      it("returns the session together with its user", async () => {
        const user = await newUser()
        const input = makeSession(user.id)
        await a().createSession(input)
        const found = await a().getSessionAndUser(input.sessionToken)
        expect(found?.session).toMatchObject({ sessionToken: input.sessionToken, userId: user.id })
        expect(found?.session.expires).toBeInstanceOf(Date)
        expect(found?.session.expires.getTime()).toBe(input.expires.getTime())
        expect(found?.user).toMatchObject({ id: user.id, email: user.email, name: user.name })
        expect(found?.user.emailVerified).toBeInstanceOf(Date)
      })

      it("returns the session as createSession returned it, with the row's id when the store gives rows one", async () => {
        // Auth.js's database adapters return the whole row; the session callback sees it.
        const user = await newUser()
        const created = await a().createSession(makeSession(user.id))
        const found = await a().getSessionAndUser(created.sessionToken)
        expect(present(found?.session)).toEqual(present(created))
      })

      it("returns null for an unknown token", async () => {
        expect(await a().getSessionAndUser(crypto.randomUUID())).toBeNull()
      })
    })

    describe("updateSession", () => {
      it("returns the merged session and persists it", async () => {
        const user = await newUser()
        const session = await a().createSession(makeSession(user.id))
        const expires = daysFromNow(60)
        const updated = await a().updateSession({ sessionToken: session.sessionToken, expires })
        expect(updated).toMatchObject({ sessionToken: session.sessionToken, userId: user.id })
        expect(updated?.expires.getTime()).toBe(expires.getTime())
        const found = await a().getSessionAndUser(session.sessionToken)
        expect(found?.session.expires.getTime()).toBe(expires.getTime())
      })

      it("does not resurrect a deleted session", async () => {
        const user = await newUser()
        const session = await a().createSession(makeSession(user.id))
        await a().deleteSession(session.sessionToken)
        const updated = await a().updateSession({ sessionToken: session.sessionToken, expires: daysFromNow(60) })
        expectAbsent(updated)
        expect(await a().getSessionAndUser(session.sessionToken)).toBeNull()
        if (raw.session) expectAbsent(await raw.session(session.sessionToken))
      })

      it("returns null for a token that never existed, creating nothing", async () => {
        const token = crypto.randomUUID()
        expectAbsent(await a().updateSession({ sessionToken: token, expires: daysFromNow(1) }))
        expect(await a().getSessionAndUser(token)).toBeNull()
      })
    })

    describe("deleteSession", () => {
      it("removes the session and returns it (or nothing)", async () => {
        const user = await newUser()
        const session = await a().createSession(makeSession(user.id))
        const deleted = await a().deleteSession(session.sessionToken)
        if (deleted) {
          expect(deleted).toMatchObject({ sessionToken: session.sessionToken, userId: user.id })
          expect(deleted.expires).toBeInstanceOf(Date)
        }
        expect(await a().getSessionAndUser(session.sessionToken)).toBeNull()
      })

      it("leaves the user's other sessions alone", async () => {
        const user = await newUser()
        const [kept, dropped] = [await a().createSession(makeSession(user.id)), await a().createSession(makeSession(user.id))]
        await a().deleteSession(dropped.sessionToken)
        expect((await a().getSessionAndUser(kept.sessionToken))?.user.id).toBe(user.id)
      })

      it("returns null or nothing for an unknown token", async () => {
        expectAbsent(await a().deleteSession(crypto.randomUUID()))
      })
    })

    // A Portcullis capability (admin consoles), not in Auth.js: checked when present. The
    // database may hold other suites' users: each test searches for its own marker.
    describe("listUsers", () => {
      const withList = (title: string, fn: (marker: string) => Promise<void>) =>
        it(title, async () => {
          if (typeof adapter.listUsers !== "function") return void expect(adapter.listUsers).toBeUndefined()
          await fn(`lu${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`)
        })

      withList("pages through the users a search finds, ordered by id, without repeats", async (marker) => {
        const made = []
        for (let i = 0; i < 5; i++) made.push(await newUser({ email: `${marker}-${i}@example.com` }))
        const seen: string[] = []
        let cursor: string | undefined
        for (let page = 0; page < 5; page++) {
          const found = await a().listUsers({ search: marker, limit: 2, ...(cursor !== undefined && { cursor }) })
          expect(found.users.length).toBeLessThanOrEqual(2)
          seen.push(...found.users.map((u) => u.id))
          if (!found.next) break
          cursor = found.next
        }
        expect(seen).toEqual(made.map((u) => u.id).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)))
      })

      withList("matches the email or the name case-insensitively, wildcards as plain text, and filters on verified", async (marker) => {
        const named = await newUser({ name: `Ada ${marker.toUpperCase()}`, emailVerified: null })
        const mailed = await newUser({ email: `${marker}@example.com`, emailVerified: new Date() })
        await newUser({ email: `${marker.slice(0, 4)}_x@example.com` })
        const ids = async (q: Parameters<NonNullable<typeof adapter.listUsers>>[0]) => (await a().listUsers(q)).users.map((u) => u.id).sort()
        expect(await ids({ search: marker, limit: 10 })).toEqual([named.id, mailed.id].sort())
        expect(await ids({ search: marker, verified: true, limit: 10 })).toEqual([mailed.id])
        expect(await ids({ search: marker, verified: false, limit: 10 })).toEqual([named.id])
        expect(await ids({ search: `${marker.slice(0, 4)}%`, limit: 10 })).toEqual([])
        expect(await ids({ search: "!%_", limit: 10 })).toEqual([])
      })
    })

    // A Portcullis capability (session management), not in Auth.js: checked when present.
    describe("listSessions", () => {
      const withList = (title: string, fn: () => Promise<void>) =>
        it(title, async () => {
          if (typeof adapter.listSessions !== "function") return void expect(adapter.listSessions).toBeUndefined()
          await fn()
        })

      withList("lists exactly the user's sessions, never another user's", async () => {
        const [ada, bob] = [await newUser(), await newUser()]
        const mine = [await a().createSession(makeSession(ada.id)), await a().createSession(makeSession(ada.id))]
        await a().createSession(makeSession(bob.id))
        const listed = await a().listSessions(ada.id)
        expect(listed.map((s) => s.sessionToken).sort()).toEqual(mine.map((s) => s.sessionToken).sort())
        for (const s of listed) {
          expect(s.userId).toBe(ada.id)
          expect(s.expires).toBeInstanceOf(Date)
        }
      })

      withList("is empty for an unknown user and after the sessions are deleted", async () => {
        expect(await a().listSessions(crypto.randomUUID())).toEqual([])
        const user = await newUser()
        const session = await a().createSession(makeSession(user.id))
        await a().deleteSession(session.sessionToken)
        expect(await a().listSessions(user.id)).toEqual([])
      })

      withList("lists 50 sessions created at once", async () => {
        const user = await newUser()
        await Promise.all(Array.from({ length: 50 }, () => a().createSession(makeSession(user.id))))
        expect(await a().listSessions(user.id)).toHaveLength(50)
      })
    })

    // A Portcullis capability (admin consoles' "active sessions"), not in Auth.js: checked when
    // present. Other cases share the store, so each case counts what it added itself.
    describe("countSessions", () => {
      const withCount = (title: string, fn: () => Promise<void>) =>
        it(title, async () => {
          if (typeof adapter.countSessions !== "function") return void expect(adapter.countSessions).toBeUndefined()
          await fn()
        })

      withCount("counts the unexpired sessions of every user, not the expired ones, and drops a deleted one", async () => {
        const [ada, bob] = [await newUser(), await newUser()]
        const before = await a().countSessions()
        const first = await a().createSession(makeSession(ada.id))
        await a().createSession(makeSession(bob.id))
        // Expired already: a row or key no one can use.
        await a().createSession({ ...makeSession(bob.id), expires: new Date(Date.now() - 60_000) })
        expect(await a().countSessions()).toBe(before + 2)
        await a().deleteSession(first.sessionToken)
        expect(await a().countSessions()).toBe(before + 1)
      })

      withCount("counts 50 sessions created at once", async () => {
        const user = await newUser()
        const before = await a().countSessions()
        await Promise.all(Array.from({ length: 50 }, () => a().createSession(makeSession(user.id))))
        expect(await a().countSessions()).toBe(before + 50)
      })
    })

    describe("createVerificationToken and useVerificationToken", () => {
      it("returns the created token", async () => {
        const input = makeVerificationToken()
        const created = await a().createVerificationToken(input)
        expect(created).toMatchObject({ identifier: input.identifier, token: input.token })
        expect(created?.expires.getTime()).toBe(input.expires.getTime())
      })

      it("hands the token out once, then returns null", async () => {
        const input = makeVerificationToken()
        await a().createVerificationToken(input)
        const used = await a().useVerificationToken({ identifier: input.identifier, token: input.token })
        expect(used).toMatchObject({ identifier: input.identifier, token: input.token })
        expect(used?.expires).toBeInstanceOf(Date)
        expect(used?.expires.getTime()).toBe(input.expires.getTime())
        expect(await a().useVerificationToken({ identifier: input.identifier, token: input.token })).toBeNull()
        if (raw.verificationToken) expectAbsent(await raw.verificationToken(input.identifier, input.token))
      })

      it("returns null for an unknown token", async () => {
        expect(await a().useVerificationToken({ identifier: "nobody@example.com", token: crypto.randomUUID() })).toBeNull()
      })

      it("needs identifier and token to match, and a miss leaves the token usable", async () => {
        const input = makeVerificationToken()
        await a().createVerificationToken(input)
        expect(await a().useVerificationToken({ identifier: `x${input.identifier}`, token: input.token })).toBeNull()
        expect(await a().useVerificationToken({ identifier: input.identifier, token: `${input.token}x` })).toBeNull()
        expect(await a().useVerificationToken({ identifier: input.identifier, token: input.token })).not.toBeNull()
      })

      it("takes identifiers that are not addresses (passkey challenges: webauthn-challenge:<provider>)", async () => {
        const input = makeVerificationToken({ identifier: "webauthn-challenge:passkey" })
        await a().createVerificationToken(input)
        expect(await a().useVerificationToken({ identifier: "webauthn-challenge:other", token: input.token })).toBeNull()
        expect(await a().useVerificationToken({ identifier: input.identifier, token: input.token })).toMatchObject({ identifier: input.identifier, token: input.token })
        expect(await a().useVerificationToken({ identifier: input.identifier, token: input.token })).toBeNull()
      })

      it("is atomic: of 25 concurrent uses exactly one gets the token", async () => {
        const input = makeVerificationToken()
        await a().createVerificationToken(input)
        const results = await Promise.all(
          Array.from({ length: 25 }, () => a().useVerificationToken({ identifier: input.identifier, token: input.token })),
        )
        const winners = results.filter((r) => r != null)
        expect(winners).toHaveLength(1)
        expect(winners[0]).toMatchObject({ identifier: input.identifier, token: input.token })
      })
    })

    describe("authenticators", () => {
      it("creates and reads back an authenticator", async () => {
        const user = await newUser()
        const input = makeAuthenticator(user.id)
        expect(await a().createAuthenticator(input)).toMatchObject(input)
        const found = await a().getAuthenticator(input.credentialID)
        expect(found).toMatchObject(input)
        expect(found?.credentialBackedUp).toBe(true)
        expect(typeof found?.counter).toBe("number")
      })

      it("keeps null transports and a false credentialBackedUp", async () => {
        const user = await newUser()
        const input = makeAuthenticator(user.id, { transports: null, credentialBackedUp: false, credentialDeviceType: "singleDevice" })
        await a().createAuthenticator(input)
        const found = await a().getAuthenticator(input.credentialID)
        expect(found?.credentialBackedUp).toBe(false)
        expectAbsent(found?.transports)
      })

      it("returns null for an unknown credential", async () => {
        expect(await a().getAuthenticator(crypto.randomUUID())).toBeNull()
      })

      it("treats credential ids case-sensitively (they are base64)", async () => {
        const user = await newUser()
        const input = makeAuthenticator(user.id, { credentialID: `Ab${crypto.randomUUID()}` })
        await a().createAuthenticator(input)
        expect(await a().getAuthenticator(input.credentialID.toLowerCase())).toBeNull()
        const twin = makeAuthenticator(user.id, { credentialID: input.credentialID.toLowerCase() })
        await expect(Promise.resolve(a().createAuthenticator(twin))).resolves.toMatchObject({ credentialID: twin.credentialID })
      })

      it("throws on a duplicate credentialID", async () => {
        const user = await newUser()
        const input = makeAuthenticator(user.id)
        await a().createAuthenticator(input)
        await expect(async () => a().createAuthenticator({ ...input, counter: 9 })).rejects.toThrow()
        expect((await a().getAuthenticator(input.credentialID))?.counter).toBe(input.counter)
      })

      it("lists a user's authenticators", async () => {
        const user = await newUser()
        const other = await newUser()
        const mine = [makeAuthenticator(user.id), makeAuthenticator(user.id)]
        for (const authenticator of [...mine, makeAuthenticator(other.id)]) await a().createAuthenticator(authenticator)
        const listed = await a().listAuthenticatorsByUserId(user.id)
        expect(listed.map((x) => x.credentialID).sort()).toEqual(mine.map((x) => x.credentialID).sort())
        for (const authenticator of listed) expect(authenticator.userId).toBe(user.id)
      })

      it("lists [] for an unknown user", async () => {
        expect(await a().listAuthenticatorsByUserId(crypto.randomUUID())).toEqual([])
      })

      it("updates the counter, up to the WebAuthn maximum (2^32 - 1)", async () => {
        const user = await newUser()
        const input = makeAuthenticator(user.id)
        await a().createAuthenticator(input)
        const updated = await a().updateAuthenticatorCounter(input.credentialID, 4_294_967_295)
        expect(updated).toMatchObject({ ...input, counter: 4_294_967_295 })
        expect((await a().getAuthenticator(input.credentialID))?.counter).toBe(4_294_967_295)
      })

      // The account center's passkey management (docs/account.md): optional capabilities.
      it("names a passkey (renameAuthenticator), leaving others and the key as they were", async () => {
        const adapter = a() as Adapter
        // An adapter without the capability has nothing to check here (the account center says so).
        if (typeof adapter.renameAuthenticator !== "function") return void expect(adapter.renameAuthenticator).toBeUndefined()
        const user = await newUser()
        const input = makeAuthenticator(user.id)
        const other = makeAuthenticator(user.id)
        await a().createAuthenticator(input)
        await a().createAuthenticator(other)
        expectAbsent((await a().getAuthenticator(input.credentialID))?.name)
        await adapter.renameAuthenticator(input.credentialID, "Laptop — 日本語")
        expect(await a().getAuthenticator(input.credentialID)).toMatchObject({ ...input, name: "Laptop — 日本語" })
        expectAbsent((await a().getAuthenticator(other.credentialID))?.name)
        expect((await a().listAuthenticatorsByUserId(user.id)).find((x) => x.credentialID === input.credentialID)?.name).toBe("Laptop — 日本語")
      })

      it("removes one passkey (deleteAuthenticator), and nothing for an unknown id", async () => {
        const adapter = a() as Adapter
        if (typeof adapter.deleteAuthenticator !== "function") return void expect(adapter.deleteAuthenticator).toBeUndefined()
        const user = await newUser()
        const input = makeAuthenticator(user.id)
        const kept = makeAuthenticator(user.id)
        await a().createAuthenticator(input)
        await a().createAuthenticator(kept)
        await adapter.deleteAuthenticator(input.credentialID)
        await adapter.deleteAuthenticator(crypto.randomUUID())
        expect(await a().getAuthenticator(input.credentialID)).toBeNull()
        expect((await a().listAuthenticatorsByUserId(user.id)).map((x) => x.credentialID)).toEqual([kept.credentialID])
      })

      it("throws when updating the counter of an unknown credential", async () => {
        await expect(async () => a().updateAuthenticatorCounter(crypto.randomUUID(), 1)).rejects.toThrow()
      })
    })

    describe("deleteUser", () => {
      it("removes the user with their accounts, sessions and authenticators", async () => {
        const user = await newUser()
        const account = makeAccount(user.id)
        const session = makeSession(user.id)
        const authenticator = makeAuthenticator(user.id)
        await a().linkAccount(account)
        await a().createSession(session)
        await a().createAuthenticator(authenticator)

        await a().deleteUser(user.id)

        expect(await a().getUser(user.id)).toBeNull()
        expect(await a().getUserByEmail(user.email)).toBeNull()
        expect(await a().getAccount(account.providerAccountId, account.provider)).toBeNull()
        expect(await a().getUserByAccount(account)).toBeNull()
        expect(await a().getSessionAndUser(session.sessionToken)).toBeNull()
        expect(await a().getAuthenticator(authenticator.credentialID)).toBeNull()
        expect(await a().listAuthenticatorsByUserId(user.id)).toEqual([])
        if (raw.user) expectAbsent(await raw.user(user.id))
        if (raw.account) expectAbsent(await raw.account(account.provider, account.providerAccountId))
        if (raw.session) expectAbsent(await raw.session(session.sessionToken))
        if (raw.authenticator) expectAbsent(await raw.authenticator(authenticator.credentialID))
      })

      it("removes an unverified passkey sign-up completely: several sessions, its webauthn accounts and authenticators (T67)", async () => {
        // What the first verification of the address deletes before creating a fresh user.
        const user = await newUser({ emailVerified: null })
        const passkeys = [makeAuthenticator(user.id), makeAuthenticator(user.id)]
        const sessions = [makeSession(user.id), makeSession(user.id), makeSession(user.id)]
        for (const passkey of passkeys) {
          await a().createAuthenticator(passkey)
          await a().linkAccount(makeAccount(user.id, { type: "webauthn", provider: "passkey", providerAccountId: passkey.credentialID }))
        }
        for (const session of sessions) await a().createSession(session)

        await a().deleteUser(user.id)

        for (const passkey of passkeys) {
          expect(await a().getAuthenticator(passkey.credentialID)).toBeNull()
          expect(await a().getAccount(passkey.credentialID, "passkey")).toBeNull()
        }
        for (const session of sessions) expect(await a().getSessionAndUser(session.sessionToken)).toBeNull()
        expect(await a().listAuthenticatorsByUserId(user.id)).toEqual([])
        // The credential ids are free again: the same passkey could be registered anew.
        const again = await newUser()
        await a().createAuthenticator(makeAuthenticator(again.id, { credentialID: passkeys[0]!.credentialID, providerAccountId: passkeys[0]!.credentialID }))
      })

      it("leaves other users' records alone", async () => {
        const [doomed, bystander] = [await newUser(), await newUser()]
        const account = makeAccount(bystander.id)
        const session = makeSession(bystander.id)
        await a().linkAccount(account)
        await a().createSession(session)
        await a().deleteUser(doomed.id)
        expect((await a().getUserByAccount(account))?.id).toBe(bystander.id)
        expect((await a().getSessionAndUser(session.sessionToken))?.user.id).toBe(bystander.id)
      })

      it("frees the email for a new user", async () => {
        const user = await newUser()
        await a().deleteUser(user.id)
        const again = await newUser({ email: user.email })
        expect((await a().getUserByEmail(user.email))?.id).toBe(again.id)
      })
    })

    if (factory.twoFactor) {
      describe("two-factor records (Portcullis extension)", () => {
        const record = (userId: string, overrides: Partial<AdapterTwoFactor> = {}): AdapterTwoFactor => ({
          userId,
          secret: "sealed-secret",
          enabled: false,
          lastUsedStep: null,
          backupCodes: [],
          ...overrides,
        })

        it("stores, replaces and deletes a user's record; null for a user without one", async () => {
          const user = await newUser()
          expect(await a().getTwoFactor(user.id)).toBeNull()
          await a().setTwoFactor(record(user.id))
          expect(await a().getTwoFactor(user.id)).toEqual(record(user.id))
          const enabled = record(user.id, { secret: "other", enabled: true, lastUsedStep: 59_000_000, backupCodes: ["h1", "h2"] })
          await a().setTwoFactor(enabled)
          expect(await a().getTwoFactor(user.id)).toEqual(enabled)
          await a().deleteTwoFactor(user.id)
          expect(await a().getTwoFactor(user.id)).toBeNull()
          await a().deleteTwoFactor(user.id)
        })

        it("takes 10 concurrent writes of one user's record, keeping one of them whole", async () => {
          const user = await newUser()
          const records = Array.from({ length: 10 }, (_, i) => record(user.id, { secret: `sealed-${i}`, backupCodes: [`h${i}`] }))
          await Promise.all(records.map((r) => a().setTwoFactor(r)))
          const stored = await a().getTwoFactor(user.id)
          expect(records).toContainEqual(stored)
        })

        it("removes the record with the user", async () => {
          const user = await newUser()
          await a().setTwoFactor(record(user.id, { enabled: true }))
          await a().deleteUser(user.id)
          expect(await a().getTwoFactor(user.id)).toBeNull()
        })

        it("moves the used time step forward only: the same or an earlier step is refused", async () => {
          const user = await newUser()
          await a().setTwoFactor(record(user.id, { enabled: true }))
          expect(await a().useTwoFactorStep(user.id, 100)).toBe(true)
          expect(await a().useTwoFactorStep(user.id, 100)).toBe(false)
          expect(await a().useTwoFactorStep(user.id, 99)).toBe(false)
          expect(await a().useTwoFactorStep(user.id, 101)).toBe(true)
          expect((await a().getTwoFactor(user.id))?.lastUsedStep).toBe(101)
          expect(await a().useTwoFactorStep(crypto.randomUUID(), 5)).toBe(false)
        })

        it("is atomic: of 25 concurrent uses of one time step exactly one succeeds", async () => {
          const user = await newUser()
          await a().setTwoFactor(record(user.id, { enabled: true, lastUsedStep: 10 }))
          const results = await Promise.all(Array.from({ length: 25 }, () => a().useTwoFactorStep(user.id, 11)))
          expect(results.filter(Boolean)).toHaveLength(1)
        })

        it("uses a backup code once, keeping the others", async () => {
          const user = await newUser()
          await a().setTwoFactor(record(user.id, { enabled: true, backupCodes: ["h1", "h2", "h3"] }))
          expect(await a().useTwoFactorBackupCode(user.id, "h2")).toBe(true)
          expect(await a().useTwoFactorBackupCode(user.id, "h2")).toBe(false)
          expect(await a().useTwoFactorBackupCode(user.id, "nope")).toBe(false)
          expect((await a().getTwoFactor(user.id))?.backupCodes).toEqual(["h1", "h3"])
          expect(await a().useTwoFactorBackupCode(crypto.randomUUID(), "h1")).toBe(false)
        })

        it("is atomic: of 25 concurrent uses of one backup code exactly one succeeds, and other codes used at once all succeed", async () => {
          const user = await newUser()
          const codes = Array.from({ length: 10 }, (_, i) => `h${i}`)
          await a().setTwoFactor(record(user.id, { enabled: true, backupCodes: codes }))
          const same = Array.from({ length: 25 }, () => a().useTwoFactorBackupCode(user.id, "h0"))
          const others = codes.slice(1, 6).map((code) => a().useTwoFactorBackupCode(user.id, code))
          const [sameResults, otherResults] = await Promise.all([Promise.all(same), Promise.all(others)])
          expect(sameResults.filter(Boolean)).toHaveLength(1)
          expect(otherResults).toEqual([true, true, true, true, true])
          expect((await a().getTwoFactor(user.id))?.backupCodes).toEqual(codes.slice(6))
        })
      })
    }

    if (factory.tokenRefresh) {
      describe("getAccountByUserId (Portcullis extension)", () => {
        it("finds a user's account by provider, and null for another provider or user", async () => {
          const user = await newUser()
          const account = makeAccount(user.id, { refresh_token: "r1", access_token: "a1", expires_at: 1_900_000_000 })
          await a().linkAccount(account)
          const found = await a().getAccountByUserId(user.id, account.provider)
          expect(present(found)).toMatchObject({ userId: user.id, provider: account.provider, providerAccountId: account.providerAccountId, refresh_token: "r1", access_token: "a1", expires_at: 1_900_000_000 })
          expect(await a().getAccountByUserId(user.id, "another-provider")).toBeNull()
          expect(await a().getAccountByUserId(crypto.randomUUID(), account.provider)).toBeNull()
        })
      })

      describe("updateAccount (Portcullis extension)", () => {
        it("writes the patch, clears fields set to null, keeps the rest", async () => {
          const user = await newUser()
          const account = makeAccount(user.id, { refresh_token: "r1", access_token: "a1", expires_at: 1_900_000_000, scope: "openid" })
          await a().linkAccount(account)
          const updated = await a().updateAccount(account, { access_token: "a2", expires_at: null, reauth_required: true })
          expect(present(updated)).toMatchObject({ access_token: "a2", refresh_token: "r1", scope: "openid", reauth_required: true })
          const read = await a().getAccountByUserId(user.id, account.provider)
          expect(read?.access_token).toBe("a2")
          expectAbsent(read?.expires_at)
          expect(read?.reauth_required).toBe(true)
          const cleared = await a().updateAccount(account, { reauth_required: false })
          expect(!!cleared?.reauth_required).toBe(false)
        })

        it("compares the stored refresh token first: a stale one writes nothing and answers null", async () => {
          const user = await newUser()
          const account = makeAccount(user.id, { refresh_token: "r1", access_token: "a1" })
          await a().linkAccount(account)
          expect(await a().updateAccount(account, { access_token: "evil", refresh_token: "r-evil" }, { refresh_token: "r0" })).toBeNull()
          expect((await a().getAccountByUserId(user.id, account.provider))?.refresh_token).toBe("r1")
          const won = await a().updateAccount(account, { access_token: "a2", refresh_token: "r2" }, { refresh_token: "r1" })
          expect(won?.refresh_token).toBe("r2")
        })

        it("is atomic: of 25 concurrent writers expecting the same refresh token exactly one wins", async () => {
          const user = await newUser()
          const account = makeAccount(user.id, { refresh_token: "r1", access_token: "a1" })
          await a().linkAccount(account)
          const results = await Promise.all(
            Array.from({ length: 25 }, (_, i) => a().updateAccount(account, { access_token: `a${i}`, refresh_token: `r-${i}` }, { refresh_token: "r1" })),
          )
          const winners = results.filter((r) => r !== null)
          expect(winners).toHaveLength(1)
          const stored = await a().getAccountByUserId(user.id, account.provider)
          expect(stored?.refresh_token).toBe(winners[0]!.refresh_token)
        })

        it("answers null for an account that does not exist, creating nothing", async () => {
          const key = { provider: "none", providerAccountId: crypto.randomUUID() }
          expect(await a().updateAccount(key, { access_token: "x" })).toBeNull()
          expect(await a().getAccount(key.providerAccountId, key.provider)).toBeNull()
        })
      })

      describe("acquireLock and releaseLock (Portcullis extension)", () => {
        it("is exclusive: of 25 concurrent acquirers exactly one holds the lock", async () => {
          const key = `lock-${crypto.randomUUID()}`
          const owners = Array.from({ length: 25 }, () => crypto.randomUUID())
          const results = await Promise.all(owners.map((owner) => a().acquireLock(key, owner, 30_000)))
          expect(results.filter(Boolean)).toHaveLength(1)
          const holder = owners[results.indexOf(true)]!
          await a().releaseLock(key, holder)
          expect(await a().acquireLock(key, owners[0]!, 30_000)).toBe(true)
        })

        it("releases only for the owner that holds it", async () => {
          const key = `lock-${crypto.randomUUID()}`
          expect(await a().acquireLock(key, "holder", 30_000)).toBe(true)
          await a().releaseLock(key, "someone else")
          expect(await a().acquireLock(key, "intruder", 30_000)).toBe(false)
          await a().releaseLock(key, "holder")
          expect(await a().acquireLock(key, "next", 30_000)).toBe(true)
        })

        it("frees a lock whose holder never released it once its time is up", async () => {
          const key = `lock-${crypto.randomUUID()}`
          expect(await a().acquireLock(key, "dead holder", 30)).toBe(true)
          let taken = false
          for (let i = 0; i < 100 && !taken; i++) {
            taken = await a().acquireLock(key, "next", 30_000)
            if (!taken) await new Promise((resolve) => setTimeout(resolve, 20))
          }
          expect(taken).toBe(true)
        })
      })

      describe("setShared and getShared (Portcullis extension)", () => {
        it("reads back a shared value, and null for an unknown key", async () => {
          const key = `shared-${crypto.randomUUID()}`
          await a().setShared(key, "sealed value", 30_000)
          expect(await a().getShared(key)).toBe("sealed value")
          expect(await a().getShared(`shared-${crypto.randomUUID()}`)).toBeNull()
        })

        it("forgets a shared value once its time is up, and a later value replaces an earlier one", async () => {
          const key = `shared-${crypto.randomUUID()}`
          await a().setShared(key, "short-lived", 30)
          let gone = false
          for (let i = 0; i < 100 && !gone; i++) {
            gone = (await a().getShared(key)) === null
            if (!gone) await new Promise((resolve) => setTimeout(resolve, 20))
          }
          expect(gone).toBe(true)
          await a().setShared(key, "first", 30_000)
          await a().setShared(key, "second", 30_000)
          expect(await a().getShared(key)).toBe("second")
        })
      })
    }

    if (factory.passwords) {
      describe("getUserPassword / setUserPassword (Portcullis extension)", () => {
        it("stores one hash per user, replaces it, and answers null for a user without one", async () => {
          const user = await newUser()
          const other = await newUser()
          expect(await a().getUserPassword(user.id)).toBeNull()
          await a().setUserPassword(user.id, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$first")
          await a().setUserPassword(user.id, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$second")
          expect(await a().getUserPassword(user.id)).toBe("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$second")
          expect(await a().getUserPassword(other.id)).toBeNull()
        })

        it("never puts the hash on the user record", async () => {
          const user = await newUser()
          await a().setUserPassword(user.id, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$onrecord")
          expect(JSON.stringify(await a().getUser(user.id))).not.toContain("onrecord")
          expect(JSON.stringify(await a().getUserByEmail(user.email))).not.toContain("onrecord")
        })

        it("deletes the hash with the user, so a new user with the old id has none", async () => {
          const user = await newUser()
          await a().setUserPassword(user.id, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$deleted")
          await a().deleteUser(user.id)
          expect(await a().getUserPassword(user.id)).toBeNull()
        })

        it("keeps one hash when 20 writers set it at once: the last write of one of them", async () => {
          const user = await newUser()
          const written = Array.from({ length: 20 }, (_, i) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$writer${i}`)
          await Promise.all(written.map((hash) => a().setUserPassword(user.id, hash)))
          expect(written).toContain(await a().getUserPassword(user.id))
        })
      })
    }

    if (factory.auditTrail) auditTrailSpecs(a, it)

    if (Object.keys(limitations).length) {
      // Checked when it runs: vitest collects nested describes after this callback returns.
      vitestIt("declares known limitations only for specs that exist", () => {
        const unknown = Object.keys(limitations).filter((title) => !excused.has(title))
        expect(unknown, "knownLimitations names specs that do not exist").toEqual([])
      })
    }
  })
}
