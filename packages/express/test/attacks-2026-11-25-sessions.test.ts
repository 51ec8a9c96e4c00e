/**
 * Attacks on session management through a real Express server wired as docs/sessions.md
 * shows: cross-site and token-less posts to the revoke routes, one user revoking another's
 * session by its id, and the list never carrying a cookie's value.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import type { AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { getCsrfToken, listSessions, revokeOtherSessions, revokeSession, signOutEverywhere } from "@portcullis/express"
import { expressServer } from "./support.js"

const users: Record<string, { id: string; name: string }> = { ada: { id: "user-ada", name: "Ada" }, bob: { id: "user-bob", name: "Bob" } }
const config: AuthConfig = {
  secret: "a-test-secret-with-at-least-32-characters",
  trustHost: true,
  logger: { error: () => {}, warn: () => {}, debug: () => {} },
  session: { strategy: "jwt", registry: new MemorySessionRegistry(), revocationCheckInterval: 0 },
  providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => users[username as string] ?? null })],
}

let server: Awaited<ReturnType<typeof expressServer>>
beforeAll(async () => {
  server = await expressServer(config, (app) => {
    const fail = (res: express.Response, error: unknown) => res.status(403).json({ error: (error as { type?: string }).type ?? String(error) })
    app.get("/account/sessions", async (req, res) => {
      try {
        res.json({ sessions: await listSessions(req, config), csrfToken: await getCsrfToken(req, res, config) })
      } catch (error) {
        fail(res, error)
      }
    })
    app.post("/account/sessions/revoke", express.urlencoded({ extended: false }), async (req, res) => {
      try {
        res.json({ revoked: await revokeSession(req, config, String(req.body.id), res) })
      } catch (error) {
        fail(res, error)
      }
    })
    app.post("/account/sessions/revoke-others", express.urlencoded({ extended: false }), async (req, res) => {
      try {
        res.json({ revoked: await revokeOtherSessions(req, config) })
      } catch (error) {
        fail(res, error)
      }
    })
    app.post("/account/sign-out-everywhere", express.urlencoded({ extended: false }), async (req, res) => {
      try {
        res.json({ revoked: await signOutEverywhere(req, config, res) })
      } catch (error) {
        fail(res, error)
      }
    })
  })
})
afterAll(() => server.close())

/** A signed-in browser's cookie header. */
async function signIn(username: string): Promise<string> {
  const csrf = await fetch(`${server.origin}/auth/csrf`)
  const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const response = await fetch(`${server.origin}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: csrfCookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, csrfToken }),
  })
  expect(response.status).toBe(302)
  const session = response.headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) => c.startsWith("authjs.session-token="))
  expect(session).toBeTruthy()
  return `${csrfCookie}; ${session}`
}

async function sessionsOf(cookie: string) {
  const response = await fetch(`${server.origin}/account/sessions`, { headers: { cookie } })
  const text = await response.text()
  return { status: response.status, text, ...(JSON.parse(text) as { sessions?: { id: string; current: boolean }[]; csrfToken?: string; error?: string }) }
}

async function post(path: string, cookie: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.origin}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields),
  })
  return { status: response.status, body: (await response.json()) as { revoked?: number | boolean; error?: string } }
}

const signedIn = async (cookie: string) => (await (await fetch(`${server.origin}/auth/session`, { headers: { cookie } })).json()) !== null

describe("what held: the revoke routes of an Express app", () => {
  it("a post from another site (Origin: evil, with the victim's cookies and even a valid token) revokes nothing", async () => {
    const phone = await signIn("ada")
    const laptop = await signIn("ada")
    const { csrfToken } = await sessionsOf(laptop)
    for (const path of ["/account/sign-out-everywhere", "/account/sessions/revoke-others"]) {
      const answer = await post(path, laptop, { csrfToken: csrfToken! }, { origin: "https://evil.example" })
      expect(answer).toEqual({ status: 403, body: { error: "MissingCSRF" } })
      const sibling = await post(path, laptop, { csrfToken: csrfToken! }, { origin: "http://evil.127.0.0.1.nip.io", "sec-fetch-site": "same-site" })
      expect(sibling.body.error).toBe("MissingCSRF")
    }
    expect(await signedIn(phone)).toBe(true)
    expect(await signedIn(laptop)).toBe(true)
  })

  it("a same-origin post without the CSRF token (a form an injected link submits) revokes nothing", async () => {
    const phone = await signIn("ada")
    const laptop = await signIn("ada")
    expect((await post("/account/sign-out-everywhere", laptop, {})).body.error).toBe("MissingCSRF")
    expect((await post("/account/sign-out-everywhere", laptop, { csrfToken: "forged" })).body.error).toBe("MissingCSRF")
    expect(await signedIn(phone)).toBe(true)
  })

  it("Bob cannot revoke Ada's session by its id, nor see it; the list holds no cookie value", async () => {
    const ada = await signIn("ada")
    const bob = await signIn("bob")
    const adaList = await sessionsOf(ada)
    const adaId = adaList.sessions![0]!.id
    const adaToken = ada.split("authjs.session-token=")[1]!
    expect(adaList.text).not.toContain(adaToken.slice(0, 40))
    const bobList = await sessionsOf(bob)
    expect(bobList.sessions!.map((s) => s.id)).not.toContain(adaId)
    const answer = await post("/account/sessions/revoke", bob, { id: adaId, csrfToken: bobList.csrfToken! })
    expect(answer).toEqual({ status: 200, body: { revoked: false } })
    expect(await signedIn(ada)).toBe(true)
  })

  it("a revoked cookie replayed cannot list or revoke anything", async () => {
    const phone = await signIn("ada")
    const laptop = await signIn("ada")
    const { csrfToken } = await sessionsOf(laptop)
    const phoneToken = (await sessionsOf(phone)).csrfToken!
    expect((await post("/account/sign-out-everywhere", laptop, { csrfToken: csrfToken! })).body.revoked).toBeGreaterThanOrEqual(2)
    expect((await sessionsOf(phone)).error).toBe("NotSignedIn")
    expect((await post("/account/sessions/revoke-others", phone, { csrfToken: phoneToken })).body.error).toBe("NotSignedIn")
  })
})
