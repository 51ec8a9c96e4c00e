import pg from "pg"
import * as authjs from "@auth/core/jwt"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import Credentials from "@portcullis/core/providers/credentials"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { captureLogger, direct, SECRET } from "../helpers.js"
import { emailConfig, requestLink, startSmtp, type TestSmtp } from "../email/support.js"
import { SoftCredential } from "./soft-authenticator.js"
import { authenticators, expectRefused, ORIGIN, PasskeyBrowser } from "./support.js"

/**
 * Issue 12, item 3 (T67, pre-verification credentials): an attacker registers a passkey
 * under an address they do not own, and keeps a session. The owner later proves the
 * address with an email link. Everything made before that proof must die with it: the
 * attacker's session (database and JWT), the attacker's passkey, and the unverified user
 * itself, which is replaced by a fresh verified one.
 */
const VICTIM = "victim@example.com"

interface Store {
  adapter: Adapter
  /** Rows in the users table with this address (the adapter can only ever return one). */
  usersWithEmail(email: string): Promise<number>
  close(): Promise<void>
}

function prehijackSuite(label: string, open: () => Promise<Store>) {
  describe(`a passkey registered under someone else's address, on ${label}`, () => {
    let smtp: TestSmtp
    let store: Store
    beforeAll(async () => {
      smtp = await startSmtp()
      store = await open()
    })
    afterAll(async () => {
      await store?.close()
      await smtp?.close()
    })

    function setup(strategy: "database" | "jwt", email: string) {
      const events = { createUser: vi.fn(), signIn: vi.fn() }
      const config: AuthConfig = emailConfig(store.adapter, smtp.url, {
        providers: [...emailConfig(store.adapter, smtp.url).providers, Passkey],
        experimental: { enableWebAuthn: true },
        session: { strategy },
        logger: captureLogger().logger,
        events,
      })
      return { config, events, browser: () => new PasskeyBrowser(direct(config), ORIGIN), email }
    }

    describe.each(["database", "jwt"] as const)("with %s sessions", (strategy) => {
      it("the owner's first email sign-in revokes the attacker's session, passkey and user", async () => {
        const email = `${strategy}-${VICTIM}`
        const { config, events, browser } = setup(strategy, email)

        // 1. The attacker signs up with a passkey under the victim's address and is signed in.
        const attacker = browser()
        const passkey = new SoftCredential(ORIGIN, "localhost")
        expect((await attacker.register(passkey, { email })).status).toBe(302)
        expect((await attacker.session()).user.email).toBe(email)
        const squatter = (await store.adapter.getUserByEmail!(email))!
        expect(squatter.emailVerified).toBeNull()
        const attackerCookie = attacker.sessionCookie()!
        if (strategy === "jwt") {
          // The attacker's JWT carries the mark; Auth.js still opens it.
          const payload = await authjs.decode({ token: attackerCookie, secret: SECRET, salt: "authjs.session-token" })
          expect(payload).toMatchObject({ sub: squatter.id, pcl_unverified: expect.any(Number) })
        }

        // 2. The victim asks for a link and opens it in their own browser.
        const victim = browser()
        await requestLink(victim, email)
        const opened = await victim.request(smtp.linkFor(email))
        expect(opened.status).toBe(302)
        expect((await victim.session()).user.email).toBe(email)

        // 3. The attacker's session is gone, and its cookie is cleared.
        expect(await attacker.session()).toBeNull()
        expect(attacker.sessionCookie()).toBeUndefined()
        // Even with the old cookie put back.
        const replayed = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `authjs.session-token=${attackerCookie}` } }), config)
        expect(await replayed.json()).toBeNull()

        // 4. The attacker's passkey no longer signs in, named or discoverable.
        expectRefused(await attacker.authenticate(passkey), attacker)
        expectRefused(await attacker.authenticate(passkey, { email }), attacker)
        // Nor can a new passkey be registered onto the now verified address: the options are
        // those any address gets (issue 28 item 6), the callback refuses.
        expectRefused(await attacker.register(new SoftCredential(ORIGIN, "localhost"), { email }), attacker, "AccountNotLinked")
        expect(await authenticators(store.adapter, email)).toHaveLength(0)

        // 5. One user for the address: fresh, verified, without the attacker's passkey or name.
        const owner = (await store.adapter.getUserByEmail!(email))!
        expect(owner.id).not.toBe(squatter.id)
        expect(owner.emailVerified).toBeInstanceOf(Date)
        expect(owner.name ?? null).toBeNull()
        expect(await store.adapter.getUser!(squatter.id)).toBeNull()
        expect(await authenticators(store.adapter, email)).toEqual([])
        expect(await store.adapter.getAccount!(passkey.id.toString("base64"), "passkey")).toBeNull()
        expect(await store.usersWithEmail(email)).toBe(1)
        expect(events.createUser).toHaveBeenLastCalledWith({ user: expect.objectContaining({ id: owner.id }) })
        expect(events.signIn).toHaveBeenLastCalledWith(expect.objectContaining({ isNewUser: true, user: expect.objectContaining({ id: owner.id }) }))

        // 6. The victim's own session is unaffected, and (JWT) carries no mark.
        expect((await victim.session()).user.email).toBe(email)
        if (strategy === "jwt") {
          const payload = await authjs.decode({ token: victim.sessionCookie()!, secret: SECRET, salt: "authjs.session-token" })
          expect(payload).not.toHaveProperty("pcl_unverified")
        }
      })
    })

    it("credentials with database sessions: the user authorize() made for the address is replaced too", async () => {
      const email = `credentials-${VICTIM}`
      const config: AuthConfig = emailConfig(store.adapter, smtp.url, {
        providers: [
          ...emailConfig(store.adapter, smtp.url).providers,
          // The app let someone register a password for an address nobody verified.
          Credentials({ authorize: () => ({ id: crypto.randomUUID(), email, name: "Squatter" }) }),
        ],
        session: { strategy: "database" },
        logger: captureLogger().logger,
      })
      const attacker = new PasskeyBrowser(direct(config), ORIGIN)
      await attacker.signIn({})
      const squatter = (await store.adapter.getUserByEmail!(email))!
      expect(squatter.emailVerified).toBeNull()
      expect((await attacker.session()).user.name).toBe("Squatter")

      const victim = new PasskeyBrowser(direct(config), ORIGIN)
      await requestLink(victim, email)
      await victim.request(smtp.linkFor(email))
      expect(await attacker.session()).toBeNull()
      expect(await store.adapter.getUser!(squatter.id)).toBeNull()
      const owner = (await store.adapter.getUserByEmail!(email))!
      expect(owner.emailVerified).toBeInstanceOf(Date)
      expect(owner.name ?? null).toBeNull()
      expect(await store.usersWithEmail(email)).toBe(1)
    })

    it("a marked JWT session stays valid while its user is still unverified", async () => {
      const { browser } = setup("jwt", "still-unverified@example.com")
      const holder = browser()
      await holder.register(new SoftCredential(ORIGIN, "localhost"), { email: "still-unverified@example.com" })
      expect((await holder.session()).user.email).toBe("still-unverified@example.com")
      expect((await holder.session()).user.email).toBe("still-unverified@example.com")
    })
  })
}

prehijackSuite("MemoryAdapter", async () => {
  const adapter = MemoryAdapter()
  return {
    adapter,
    // The memory adapter keys users by address: one at most, by construction.
    usersWithEmail: async (email) => ((await adapter.getUserByEmail!(email)) ? 1 : 0),
    close: async () => {},
  }
})

const pgService = postgresService()
const postgres = await serviceAvailable(pgService, async () => {
  const client = new pg.Client({ connectionString: pgService.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

postgres.describe("PostgreSQL", () => {
  prehijackSuite("PostgreSQL", async () => {
    const { db, tables, adapter, close } = await openTestDatabase("postgres", { url: pgService.url })
    return {
      adapter,
      usersWithEmail: async (email) => (await db.selectFrom(tables.users).select("id").where("email", "=", email).execute()).length,
      close,
    }
  })
})

describe("a JWT session with the mark, checked against the adapter", () => {
  function markedSession(adapter: Adapter) {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      experimental: { enableWebAuthn: true },
      session: { strategy: "jwt" },
      providers: [Passkey],
      logger: captureLogger().logger,
    }
    return { config, browser: new PasskeyBrowser(direct(config), ORIGIN) }
  }

  it("is refused once its user is deleted, whoever deleted it", async () => {
    const memory = MemoryAdapter()
    const { browser } = markedSession(memory)
    await browser.register(new SoftCredential(ORIGIN, "localhost"), { email: "deleted@example.com" })
    await memory.deleteUser!((await memory.getUserByEmail!("deleted@example.com"))!.id)
    expect(await browser.session()).toBeNull()
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("loses the mark when its user is verified in place after issue, and stays valid", async () => {
    const memory = MemoryAdapter()
    const { browser } = markedSession(memory)
    await browser.register(new SoftCredential(ORIGIN, "localhost"), { email: "in-place@example.com" })
    const user = (await memory.getUserByEmail!("in-place@example.com"))!
    await memory.updateUser!({ id: user.id, emailVerified: new Date(Date.now() + 1000) })
    expect((await browser.session()).user.email).toBe("in-place@example.com")
    const payload = await authjs.decode({ token: browser.sessionCookie()!, secret: SECRET, salt: "authjs.session-token" })
    expect(payload).not.toHaveProperty("pcl_unverified")
  })

  it("answers ServiceUnavailable (503) and keeps the cookie when the adapter fails (an outage signs nobody out)", async () => {
    const memory = MemoryAdapter()
    let down = false
    const flaky: Adapter = {
      ...memory,
      async getUser(id) {
        if (down) throw new Error("database went away")
        return memory.getUser!(id)
      },
    }
    const { browser } = markedSession(flaky)
    await browser.register(new SoftCredential(ORIGIN, "localhost"), { email: "outage@example.com" })
    down = true
    const during = await browser.request("/auth/session")
    expect(during.status).toBe(503)
    expect(await during.json()).toMatchObject({ error: "ServiceUnavailable" })
    expect(browser.sessionCookie()).toBeDefined()
    down = false
    expect((await browser.session()).user.email).toBe("outage@example.com")
  })

  it("is not read from the adapter when the token is unmarked (verified users, the hot path)", async () => {
    const memory = MemoryAdapter()
    const getUser = vi.fn(memory.getUser!)
    const config: AuthConfig = {
      ...markedSession(memory).config,
      adapter: { ...memory, getUser },
      providers: [Credentials({ authorize: () => ({ id: "c1", email: "creds@example.com" }) })],
    }
    const b = new PasskeyBrowser(direct(config), ORIGIN)
    await b.signIn({})
    getUser.mockClear()
    expect((await b.session()).user.email).toBe("creds@example.com")
    expect(getUser).not.toHaveBeenCalled()
  })
})

describe("configuration (T67)", () => {
  const noDelete = () => {
    const { deleteUser: _d, ...adapter } = MemoryAdapter()
    return adapter
  }
  async function configurationError(config: Partial<AuthConfig>): Promise<string | undefined> {
    const errors: Error[] = []
    const full = { secret: SECRET, trustHost: true, logger: { error: (e: Error) => errors.push(e), warn: () => {}, debug: () => {} }, ...config } as AuthConfig
    await Auth(new Request(`${ORIGIN}/auth/session`), full)
    return errors[0]?.message
  }

  it("email beside passkeys needs deleteUser, and the error names it", async () => {
    const message = await configurationError({
      adapter: noDelete(),
      experimental: { enableWebAuthn: true },
      providers: [...emailConfig(MemoryAdapter(), "smtp://127.0.0.1:2525").providers, Passkey],
    })
    expect(message).toContain("deleteUser")
    expect(message).toContain('"passkey"')
  })

  it("email beside credentials with database sessions needs deleteUser", async () => {
    const message = await configurationError({
      adapter: noDelete(),
      session: { strategy: "database" },
      providers: [...emailConfig(MemoryAdapter(), "smtp://127.0.0.1:2525").providers, Credentials({ authorize: () => null })],
    })
    expect(message).toContain("deleteUser")
  })

  it("email alone does not (every user it creates is verified)", async () => {
    const message = await configurationError({ adapter: noDelete(), providers: emailConfig(MemoryAdapter(), "smtp://127.0.0.1:2525").providers })
    expect(message).toBeUndefined()
  })
})
