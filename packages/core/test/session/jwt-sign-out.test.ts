/**
 * Ending a JWT session: signing out (with a registry the session is removed there too, so a
 * copy of the cookie stops working; a registry that fails keeps the cookie and says so),
 * the `signOut` event and audit event it fires (Auth.js's rule: when the decoder did not
 * fail), and a new sign-in in a browser that already had a registered session, which ends
 * that one (best effort: a failing registry does not stop the sign-in).
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { AuditEvent } from "@portcullis/core/types"
import { Browser } from "../helpers.js"
import { check, claimsOf, cookieOf, FlakyRegistry, ORIGIN, recordingLogger, runtime, send } from "./jwt-support.js"

async function signedIn(extra: Partial<AuthConfig>) {
  const auth = runtime(extra)
  const browser = new Browser((request) => auth.handle(request), ORIGIN)
  expect((await browser.signIn({ username: "ada" })).status).toBe(302)
  return { auth, browser, value: browser.sessionCookie()! }
}

describe("signing out with a registry", () => {
  it("removes the session there, so a copy of the cookie stops working at once", async () => {
    const registry = new FlakyRegistry()
    const { auth, browser, value } = await signedIn({ session: { registry } })
    const { pcl_sid } = await claimsOf(value)
    // The copy is confirmed once, so the configuration remembers it as registered.
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
    expect((await browser.signOut()).status).toBe(302)
    expect(browser.sessionCookie()).toBeUndefined()
    expect(registry.removed).toEqual([["user-ada", pcl_sid]])
    expect(await registry.list("user-ada")).toEqual([])
    expect((await check(auth, value)).session).toBeNull()
  })

  it("when the registry fails: the error page, the cookie kept, the session still valid, and the log says why", async () => {
    const registry = new FlakyRegistry()
    const log = recordingLogger()
    const { auth, browser, value } = await signedIn({ session: { registry }, logger: log.logger })
    registry.removeFails = true
    const response = await browser.signOut()
    expect(response.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(browser.sessionCookie()).toBe(value)
    registry.removeFails = false
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
    const logged = log.errors.find((e) => e.name === "ServiceUnavailable")
    expect(logged?.message).toContain("The session could not be removed from the registry; it is still valid")
    expect((logged?.cause as { err?: Error } | undefined)?.err?.message).toBe("connection refused")
  })

  it("a token without a registry id removes nothing and still signs out", async () => {
    const registry = new FlakyRegistry()
    const auth = runtime({ session: { registry } })
    const outcome = await send(auth, "/auth/signout", await cookieOf({ sub: "user-ada" }), await signOutForm(auth))
    expect(outcome.cookie).toBe("deleted")
    expect(registry.removed).toEqual([])
  })
})

/** A sign-out POST's init: the CSRF cookie and token of a fresh visit. */
async function signOutForm(auth: ReturnType<typeof runtime>): Promise<RequestInit> {
  const visit = new Browser((request) => auth.handle(request), ORIGIN)
  const csrfToken = await visit.csrfToken()
  return {
    method: "POST",
    headers: { cookie: visit.cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken }).toString(),
  }
}

describe("the signOut event and the audit event", () => {
  it("carry the token, and the user id when it has one", async () => {
    const events: unknown[] = []
    const audited: AuditEvent[] = []
    const auth = runtime({ events: { signOut: (message) => void events.push(message), audit: (event) => void audited.push(event) } })
    await send(auth, "/auth/signout", await cookieOf({ sub: "user-ada", name: "Ada" }), await signOutForm(auth))
    expect(events).toEqual([{ token: expect.objectContaining({ sub: "user-ada", name: "Ada" }) }])
    expect(audited.filter((e) => e.type === "signOut")).toEqual([expect.objectContaining({ type: "signOut", outcome: "success", userId: "user-ada" })])
  })

  it("a token without sub: the audit event names no user", async () => {
    const audited: AuditEvent[] = []
    const auth = runtime({ events: { audit: (event) => void audited.push(event) } })
    await send(auth, "/auth/signout", await cookieOf({ name: "Nobody" }), await signOutForm(auth))
    const [event] = audited.filter((e) => e.type === "signOut")
    expect(event).toMatchObject({ type: "signOut", outcome: "success" })
    expect(event).not.toHaveProperty("userId")
  })

  it("a cookie the built-in decoder cannot open fires neither", async () => {
    const events: unknown[] = []
    const audited: AuditEvent[] = []
    const auth = runtime({ events: { signOut: (message) => void events.push(message), audit: (event) => void audited.push(event) } })
    const outcome = await send(auth, "/auth/signout", "not-a-token", await signOutForm(auth))
    expect(outcome.cookie).toBe("deleted")
    expect(events).toEqual([])
    expect(audited.filter((e) => e.type === "signOut")).toEqual([])
  })

  it("an app decoder that answers null fires { token: null }; one that throws fires nothing", async () => {
    const events: unknown[] = []
    const answering = runtime({ jwt: { decode: async () => null }, events: { signOut: (message) => void events.push(message) } })
    await send(answering, "/auth/signout", "anything", await signOutForm(answering))
    expect(events).toEqual([{ token: null }])
    events.length = 0
    const throwing = runtime({
      jwt: {
        decode: async () => {
          throw new Error("cannot decode")
        },
      },
      events: { signOut: (message) => void events.push(message) },
    })
    await send(throwing, "/auth/signout", "anything", await signOutForm(throwing))
    expect(events).toEqual([])
  })
})

describe("a new sign-in in a browser with a registered session", () => {
  it("ends the session the browser arrived with: removed from the registry, a copy of its cookie no longer works", async () => {
    const registry = new FlakyRegistry()
    const { auth, browser, value } = await signedIn({ session: { registry } })
    const { pcl_sid } = await claimsOf(value)
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
    expect((await browser.signIn({ username: "ada" })).status).toBe(302)
    const { pcl_sid: next } = await claimsOf(browser.sessionCookie()!)
    expect(next).not.toBe(pcl_sid)
    expect(registry.removed).toEqual([["user-ada", pcl_sid]])
    expect((await registry.list("user-ada")).map((r) => r.id)).toEqual([next])
    expect((await check(auth, value)).session).toBeNull()
  })

  it("goes on when the registry cannot remove the old one", async () => {
    const registry = new FlakyRegistry()
    const { browser, value } = await signedIn({ session: { registry } })
    registry.removeFails = true
    expect((await browser.signIn({ username: "ada" })).status).toBe(302)
    expect(browser.sessionCookie()).not.toBe(value)
    expect(await registry.list("user-ada")).toHaveLength(2)
  })

  it("an old cookie without a registry id, or that does not open, ends nothing", async () => {
    const registry = new FlakyRegistry()
    const auth = runtime({ session: { registry } })
    for (const old of [await cookieOf({ sub: "user-ada" }), "not-a-token"]) {
      const browser = new Browser((request) => auth.handle(request), ORIGIN)
      browser.jar.set("authjs.session-token", { value: old, attributes: {} })
      expect((await browser.signIn({ username: "ada" })).status).toBe(302)
    }
    expect(registry.removed).toEqual([])
    expect(await registry.list("user-ada")).toHaveLength(2)
  })
})
