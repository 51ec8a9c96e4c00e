import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { Adapter, VerificationToken } from "@portcullis/core/adapters"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { createPostgresKysely, SqlAdapter } from "@portcullis/sql-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { captureLogger, direct, SECRET } from "../helpers.js"
import { SoftCredential } from "./soft-authenticator.js"
import { expectRefused, location, ORIGIN, PasskeyBrowser } from "./support.js"

/**
 * Passkey challenges (issue 12, item 5): recorded through the adapter when issued, and
 * claimed — atomically, once — only after the response verified. So a forged response
 * cannot burn the genuine one's challenge, a valid response signs in exactly once however
 * often and wherever it is submitted, and a second process sharing the database knows
 * what the first accepted. The attacker has a copy of the victim's request: the challenge
 * cookie, the CSRF pair and the signed assertion.
 */

function passkeyConfig(adapter: Adapter, extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [Passkey],
    logger: captureLogger().logger,
    ...extra,
  }
}

/** Registers `email` with a new counter-less passkey (like a synced one) and signs out. */
async function enrolled(config: AuthConfig, email: string): Promise<SoftCredential> {
  const credential = new SoftCredential(ORIGIN, "localhost")
  const b = new PasskeyBrowser(direct(config), ORIGIN)
  expect((await b.register(credential, { email })).status).toBe(302)
  await b.signOut()
  return credential
}

/**
 * The victim's browser asks for a challenge and signs it; the request it is about to post
 * (cookies, CSRF token, assertion) is what the attacker captures.
 */
async function capturedAssertion(config: AuthConfig, credential: SoftCredential) {
  const victim = new PasskeyBrowser(direct(config), ORIGIN)
  const csrfToken = await victim.csrfToken()
  const { body } = await victim.options({ action: "authenticate" })
  const cookie = victim.cookieHeader()
  return {
    options: body.options as { challenge: string },
    cookie,
    csrfToken,
    /** Posts `data` with the captured cookies to `transport` (this process or another). */
    post(data: unknown, transport = direct(config)) {
      const b = new PasskeyBrowser(transport, ORIGIN)
      const response = b.request("/auth/callback/passkey", {
        headers: { cookie },
        form: { action: "authenticate", data: JSON.stringify(data), csrfToken },
      })
      return response.then((r) => ({ response: r, browser: b }))
    },
  }
}

const signedIn = (response: Response) =>
  response.status === 302 && location(response).pathname === "/" && response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !c.includes("Max-Age=0"))

function challengeSuite(label: string, open: () => Promise<{ adapter: Adapter; second?: () => Adapter; sessionRows?: () => Promise<number>; close(): Promise<void> }>) {
  describe(`passkey challenges on ${label}`, () => {
    let store: Awaited<ReturnType<typeof open>>
    beforeAll(async () => {
      store = await open()
    })
    afterAll(async () => {
      await store?.close()
    })

    describe("a failed response does not use up the challenge", () => {
      it("the attacker posts a forged signature with the captured cookie first; the genuine assertion still signs in", async () => {
        const config = passkeyConfig(store.adapter)
        const credential = await enrolled(config, `forged-${label}@example.com`)
        const captured = await capturedAssertion(config, credential)

        const impostor = new SoftCredential(ORIGIN, "localhost")
        const forged = credential.authenticate(captured.options, { signWith: impostor.privateKey })
        const attack = await captured.post(forged)
        expectRefused(attack.response, attack.browser)

        const genuine = await captured.post(credential.authenticate(captured.options))
        expect(signedIn(genuine.response)).toBe(true)
      })

      it("an assertion from an unknown credential does not use it up either", async () => {
        const config = passkeyConfig(store.adapter)
        const credential = await enrolled(config, `unknown-${label}@example.com`)
        const captured = await capturedAssertion(config, credential)
        const stranger = new SoftCredential(ORIGIN, "localhost")
        const attack = await captured.post(stranger.authenticate(captured.options))
        expectRefused(attack.response, attack.browser)
        expect(signedIn((await captured.post(credential.authenticate(captured.options))).response)).toBe(true)
      })
    })

    describe("a verified response signs in exactly once", () => {
      it("the attacker replays the victim's successful request: refused", async () => {
        const config = passkeyConfig(store.adapter)
        const credential = await enrolled(config, `replay-${label}@example.com`)
        const captured = await capturedAssertion(config, credential)
        const assertion = credential.authenticate(captured.options)
        expect(signedIn((await captured.post(assertion)).response)).toBe(true)
        const replay = await captured.post(assertion)
        expectRefused(replay.response, replay.browser)
      })

      it("20 concurrent submissions of one valid assertion give exactly one session", async () => {
        const config = passkeyConfig(store.adapter)
        const credential = await enrolled(config, `race-${label}@example.com`)
        const captured = await capturedAssertion(config, credential)
        const assertion = credential.authenticate(captured.options)
        const before = await store.sessionRows?.()

        const results = await Promise.all(Array.from({ length: 20 }, () => captured.post(assertion)))
        const winners = results.filter((r) => signedIn(r.response))
        expect(winners).toHaveLength(1)
        for (const loser of results.filter((r) => !signedIn(r.response))) expectRefused(loser.response, loser.browser)
        if (before !== undefined) expect((await store.sessionRows!()) - before).toBe(1)
      })
    })

    if (label === "PostgreSQL") {
      describe("two processes share the record of used challenges", () => {
        it("an assertion accepted by one process is refused by the other", async () => {
          // Two configurations, each with its own connection pool: two app processes.
          const first = passkeyConfig(store.adapter)
          const second = passkeyConfig(store.second!())
          const credential = await enrolled(first, "two-processes@example.com")
          const captured = await capturedAssertion(first, credential)
          const assertion = credential.authenticate(captured.options)

          expect(signedIn((await captured.post(assertion, direct(first))).response)).toBe(true)
          const elsewhere = await captured.post(assertion, direct(second))
          expectRefused(elsewhere.response, elsewhere.browser)
        })

        it("a challenge issued by one process is accepted once by the other", async () => {
          const first = passkeyConfig(store.adapter)
          const second = passkeyConfig(store.second!())
          const credential = await enrolled(first, "issued-elsewhere@example.com")
          const captured = await capturedAssertion(first, credential)
          const assertion = credential.authenticate(captured.options)
          expect(signedIn((await captured.post(assertion, direct(second))).response)).toBe(true)
          const back = await captured.post(assertion, direct(first))
          expectRefused(back.response, back.browser)
        })
      })
    }
  })
}

challengeSuite("MemoryAdapter", async () => ({ adapter: MemoryAdapter(), close: async () => {} }))

const pgService = postgresService()
const postgres = await serviceAvailable(pgService, async () => {
  const client = new pg.Client({ connectionString: pgService.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

postgres.describe("PostgreSQL", () => {
  let extra: ReturnType<typeof createPostgresKysely> | undefined
  challengeSuite("PostgreSQL", async () => {
    const database: TestDatabase = await openTestDatabase("postgres", { url: pgService.url })
    return {
      adapter: database.adapter,
      second: () => {
        extra ??= createPostgresKysely(pgService.url)
        return SqlAdapter(extra, { tables: database.tables })
      },
      sessionRows: async () =>
        Number((await database.db.selectFrom(database.tables.sessions).select(database.db.fn.countAll().as("n")).executeTakeFirstOrThrow()).n),
      close: async () => {
        await extra?.destroy()
        await database.close()
      },
    }
  })
})

describe("what is stored for a challenge", () => {
  it("a keyed hash under webauthn-challenge:<provider>, expiring with the ceremony, never the challenge itself", async () => {
    const memory = MemoryAdapter()
    const created: VerificationToken[] = []
    const adapter: Adapter = {
      ...memory,
      createVerificationToken(token) {
        created.push({ ...token })
        return memory.createVerificationToken!(token)
      },
    }
    const b = new PasskeyBrowser(direct(passkeyConfig(adapter)), ORIGIN)
    const { body } = await b.options({ action: "authenticate" })
    expect(created).toHaveLength(1)
    const [record] = created
    expect(record!.identifier).toBe("webauthn-challenge:passkey")
    expect(record!.token).toMatch(/^[0-9a-f]{64}$/)
    expect(record!.token).not.toContain(body.options.challenge)
    // The default ceremony timeout is 5 minutes; a minute of grace on top.
    const lifetime = record!.expires.getTime() - Date.now()
    expect(lifetime).toBeGreaterThan(5 * 60_000)
    expect(lifetime).toBeLessThanOrEqual(6 * 60_000)
  })

  it("a challenge whose record is gone (expired and cleaned up) is refused", async () => {
    const memory = MemoryAdapter()
    const created: VerificationToken[] = []
    const adapter: Adapter = {
      ...memory,
      createVerificationToken(token) {
        created.push({ ...token })
        return memory.createVerificationToken!(token)
      },
    }
    const config = passkeyConfig(adapter)
    const credential = await enrolled(config, "gone@example.com")
    const b = new PasskeyBrowser(direct(config), ORIGIN)
    const { body } = await b.options({ action: "authenticate" })
    // What a cleanup job does to an outstanding record.
    const record = created.at(-1)!
    expect(await memory.useVerificationToken!({ identifier: record.identifier, token: record.token })).not.toBeNull()
    expectRefused(await b.callback("authenticate", credential.authenticate(body.options)), b)
  })
})

describe("configuration", () => {
  it("an adapter without verification tokens cannot serve passkeys: the error names the methods", async () => {
    const { createVerificationToken: _c, useVerificationToken: _u, ...adapter } = MemoryAdapter()
    const errors: Error[] = []
    const config = passkeyConfig(adapter, { logger: { error: (e) => errors.push(e), warn: () => {}, debug: () => {} } })
    const response = await Auth(new Request(`${ORIGIN}/auth/webauthn-options/passkey`), config)
    expect(response.status).toBe(500)
    expect(errors[0]?.message).toContain("createVerificationToken, useVerificationToken")
  })
})
