/**
 * Session management attacked over a real socket (2026-11-27): Bob aims at Ada's sessions with
 * every identifier he could learn (her listed id, her cookie's token, its stored hash), revokes
 * from another site, revoked sessions replayed at once, and 50 revocations of one session at
 * the same moment — with database sessions on PostgreSQL and JWT sessions with a registry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { listSessions, revokeOtherSessions, revokeSession, sessionManager, signOutEverywhere } from "@portcullis/core/integration"
import Credentials from "@portcullis/core/providers/credentials"
import { postgresGate } from "../../postgres-gate.js"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { Browser, SECRET } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"

const { service, postgres } = await postgresGate()

const people: Record<string, { id: string; name: string; email: string }> = {
  ada: { id: "a-ada", name: "Ada", email: "ada@example.com" },
  bob: { id: "a-bob", name: "Bob", email: "bob@example.com" },
}

function appConfig(session: AuthConfig["session"], adapter?: Adapter, revoked: string[][] = []): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    ...(adapter && { adapter }),
    session,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    events: { sessionRevoked: (e) => void revoked.push(e.sessionIds) },
    providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => people[String(username)] ?? null })],
  }
}

type Harness = { server: TestServer; config: AuthConfig; revoked: string[][]; cookieName: string }

async function signedIn(h: Harness, who: string): Promise<Browser> {
  const browser = new Browser(h.server.transport, h.server.origin)
  const response = await browser.signIn({ username: who })
  expect(response.status).toBe(302)
  expect(browser.sessionCookie()).toBeTruthy()
  return browser
}

/** What core's session management reads of a browser's request to the app. */
async function as(h: Harness, browser: Browser, extra: { origin?: string; csrf?: boolean } = {}) {
  const csrfToken = extra.csrf === false ? undefined : await browser.csrfToken()
  return { origin: extra.origin ?? h.server.origin, headers: new Headers({ cookie: browser.cookieHeader(), origin: extra.origin ?? h.server.origin }), ...(csrfToken && { csrfToken }) }
}

/** The id session management lists `browser`'s own session under. */
async function currentId(h: Harness, browser: Browser): Promise<string> {
  const own = (await listSessions(await as(h, browser), h.config)).find((s) => s.current)
  expect(own).toBeTruthy()
  return own!.id
}

const sessionOf = async (browser: Browser) => (await (await browser.request("/auth/session")).json()) as { user?: { name?: string } } | null

function attacks(label: string, open: () => Promise<Harness & { close(): Promise<void> }>) {
  describe(label, () => {
    let h: Harness & { close(): Promise<void> }
    beforeAll(async () => {
      h = await open()
    })
    afterAll(() => h.close())

    it("Bob cannot revoke Ada's session by her listed id, her cookie's token or its hash; her session keeps working", async () => {
      const ada = await signedIn(h, "ada")
      const bob = await signedIn(h, "bob")
      const adaIds = (await listSessions(await as(h, ada), h.config)).map((s) => s.id)
      expect(adaIds).toHaveLength(1)
      const bobList = await listSessions(await as(h, bob), h.config)
      expect(bobList.map((s) => s.id)).not.toContain(adaIds[0])
      const token = ada.sessionCookie()!
      const hex = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))].map((b) => b.toString(16).padStart(2, "0")).join("")
      for (const id of [adaIds[0]!, token, hex, adaIds[0]!.toUpperCase(), ` ${adaIds[0]}`, "*", "%", ""]) {
        expect(await revokeSession({ ...(await as(h, bob)), id }, h.config)).toBe(false)
      }
      expect((await sessionOf(ada))?.user?.name).toBe("Ada")
      expect((await sessionOf(bob))?.user?.name).toBe("Bob")
    })

    it("a revoke, revoke-others or sign-out-everywhere from another site, or without the token, changes nothing", async () => {
      const phone = await signedIn(h, "ada")
      const laptop = await signedIn(h, "ada")
      const id = await currentId(h, phone)
      const evil = await as(h, laptop, { origin: "https://evil.example" })
      await expect(revokeSession({ ...evil, id: id! }, h.config)).rejects.toMatchObject({ type: "MissingCSRF" })
      await expect(revokeOtherSessions(evil, h.config)).rejects.toMatchObject({ type: "MissingCSRF" })
      await expect(signOutEverywhere(evil, h.config)).rejects.toMatchObject({ type: "MissingCSRF" })
      const crossSite = { ...(await as(h, laptop)), headers: new Headers({ cookie: laptop.cookieHeader(), "sec-fetch-site": "cross-site" }) }
      await expect(signOutEverywhere(crossSite, h.config)).rejects.toMatchObject({ type: "MissingCSRF" })
      await expect(signOutEverywhere({ ...(await as(h, laptop)), csrfToken: "forged" }, h.config)).rejects.toMatchObject({ type: "MissingCSRF" })
      expect((await sessionOf(phone))?.user?.name).toBe("Ada")
      expect((await sessionOf(laptop))?.user?.name).toBe("Ada")
    })

    it("the token-less framework path (sessionManager, CSRF token skipped) still refuses another site, Origin: null and cross-site fetches", async () => {
      const phone = await signedIn(h, "ada")
      const laptop = await signedIn(h, "ada")
      const id = await currentId(h, phone)
      const attempts: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }, { origin: h.server.origin.replace("127.0.0.1", "localhost") }]
      for (const headers of attempts) {
        const manager = sessionManager(h.server.origin, new Headers({ cookie: laptop.cookieHeader(), ...headers }), h.config)
        await expect(manager.revoke(id)).rejects.toMatchObject({ type: "MissingCSRF" })
        await expect(manager.revokeOthers()).rejects.toMatchObject({ type: "MissingCSRF" })
        await expect(manager.signOutEverywhere()).rejects.toMatchObject({ type: "MissingCSRF" })
      }
      expect((await sessionOf(phone))?.user?.name).toBe("Ada")
      expect((await sessionOf(laptop))?.user?.name).toBe("Ada")
    })

    it("a revoked session stops working at once, even for a copy of its cookie taken before", async () => {
      const phone = await signedIn(h, "ada")
      const laptop = await signedIn(h, "ada")
      expect((await sessionOf(phone))?.user?.name).toBe("Ada") // confirmed (and remembered) just before
      const stolen = phone.cookieHeader()
      const id = await currentId(h, phone)
      expect(await revokeSession({ ...(await as(h, laptop)), id: id! }, h.config)).toBe(true)
      const replay = await fetch(`${h.server.origin}/auth/session`, { headers: { cookie: stolen } })
      expect(replay.status).toBe(200)
      expect(await replay.json()).toBeNull()
      await expect(listSessions({ origin: h.server.origin, headers: new Headers({ cookie: stolen }) }, h.config)).rejects.toMatchObject({ type: "NotSignedIn" })
      expect((await sessionOf(laptop))?.user?.name).toBe("Ada")
    })

    it("50 concurrent revocations of one session: exactly one succeeds, one event, no error", async () => {
      const phone = await signedIn(h, "ada")
      const laptop = await signedIn(h, "ada")
      const id = await currentId(h, phone)
      const request = await as(h, laptop)
      h.revoked.length = 0
      const results = await Promise.all(Array.from({ length: 50 }, () => revokeSession({ ...request, id: id! }, h.config)))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect(h.revoked).toEqual([[id]])
      expect(await sessionOf(phone)).toBeNull()
      expect((await sessionOf(laptop))?.user?.name).toBe("Ada")
    })

    it("50 concurrent sign-outs-everywhere of one user end every session and none fails with a 500", async () => {
      const browsers = await Promise.all(Array.from({ length: 5 }, () => signedIn(h, "ada")))
      const request = await as(h, browsers[0]!)
      const before = (await listSessions(request, h.config)).length
      expect(before).toBeGreaterThanOrEqual(5)
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => signOutEverywhere(request, h.config)))
      for (const o of outcomes) if (o.status === "rejected") expect((o.reason as { type?: string }).type).toBe("NotSignedIn")
      const total = outcomes.reduce((n, o) => n + (o.status === "fulfilled" ? o.value : 0), 0)
      expect(total).toBe(before)
      for (const b of browsers) expect(await sessionOf(b)).toBeNull()
    })
  })
}

attacks("JWT sessions with a registry (revocationCheckInterval 60)", async () => {
  const revoked: string[][] = []
  const config = appConfig({ strategy: "jwt", registry: new MemorySessionRegistry(), revocationCheckInterval: 60 }, undefined, revoked)
  const server = await httpServer(config)
  return { server, config, revoked, cookieName: "authjs.session-token", close: () => server.close() }
})

postgres.describe("on PostgreSQL (gate)", () => {
  attacks("database sessions on PostgreSQL", async () => {
    const db: TestDatabase = await openTestDatabase("postgres", { url: service.url })
    for (const p of Object.values(people)) await db.adapter.createUser!({ ...p, emailVerified: null, image: null })
    const revoked: string[][] = []
    const config = appConfig({ strategy: "database" }, db.adapter, revoked)
    const server = await httpServer(config)
    return {
      server,
      config,
      revoked,
      cookieName: "authjs.session-token",
      close: async () => {
        await server.close()
        await db.close()
      },
    }
  })
})
