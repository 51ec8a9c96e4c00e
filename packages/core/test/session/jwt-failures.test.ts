/**
 * What a JWT session check or sign-in logs when something fails, and what it answers:
 * pieces of a chunked cookie that do not assemble (a rate-limited warning naming the
 * cookie, every piece deleted), app code that throws while the token is used or opened
 * (an error saying which step failed, the cookie deleted), and a registry that cannot
 * record a session because the jwt callback dropped its user id (the sign-in fails, saying why).
 */
import { describe, expect, it } from "vitest"
import { Browser } from "../helpers.js"
import { check, COOKIE, cookieOf, FlakyRegistry, ORIGIN, recordingLogger, runtime, send } from "./jwt-support.js"

describe("a chunked session cookie whose pieces do not assemble", () => {
  it("is no session; every piece is deleted and a warning names the cookie", async () => {
    const log = recordingLogger()
    const auth = runtime({ logger: log.logger })
    const response = await auth.handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `${COOKIE}.0=abc; ${COOKIE}.2=def` } }))
    expect(await response.json()).toBeNull()
    const deleted = response.headers.getSetCookie().filter((c) => c.startsWith(`${COOKIE}.`))
    expect(deleted.map((c) => c.split("=")[0]).sort()).toEqual([`${COOKIE}.0`, `${COOKIE}.2`])
    expect(log.warnings).toEqual([["session-cookie-unreadable", { kind: "malformed", cookie: COOKIE }]])
  })
})

describe("app code that throws during a session check", () => {
  it("a session callback: the error is logged as the token not being usable, and the cookie deleted", async () => {
    const log = recordingLogger()
    const auth = runtime({
      logger: log.logger,
      callbacks: {
        session: () => {
          throw new Error("session callback broke")
        },
      },
    })
    const { session, cookie } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(session).toBeNull()
    expect(cookie).toBe("deleted")
    expect(log.errors).toHaveLength(1)
    expect(log.errors[0]!.name).toBe("JWTSessionError")
    expect(log.errors[0]!.message).toContain("The session token could not be used")
  })

  it("an app decoder: the error is logged as the token not opening, and the cookie deleted", async () => {
    const log = recordingLogger()
    const auth = runtime({
      logger: log.logger,
      jwt: {
        decode: async () => {
          throw new TypeError("decoder broke")
        },
      },
    })
    const { session, cookie } = await check(auth, "anything")
    expect(session).toBeNull()
    expect(cookie).toBe("deleted")
    expect(log.errors.map((e) => e.message).join("\n")).toContain("The session token could not be opened")
  })
})

describe("a sign-in with a registry whose jwt callback drops the user id", () => {
  it("fails, and the log says the registry needs the token's sub", async () => {
    const log = recordingLogger()
    const registry = new FlakyRegistry()
    const auth = runtime({ logger: log.logger, session: { registry }, callbacks: { jwt: ({ token }) => ({ name: token.name }) } })
    const browser = new Browser((request) => auth.handle(request), ORIGIN)
    const response = await browser.signIn({ username: "ada" })
    expect(response.headers.get("location")).toContain("error=")
    expect(browser.sessionCookie()).toBeUndefined()
    expect(await registry.list("user-ada")).toEqual([])
    expect(log.errors.map((e) => e.message).join("\n")).toContain("session.registry needs the token's sub (the user id); the jwt callback returned a token without one")
  })
})

describe("a session cookie the built-in codec cannot open", () => {
  it("is deleted, with a warning (not an error) naming the cookie", async () => {
    const log = recordingLogger()
    const auth = runtime({ logger: log.logger })
    const outcome = await send(auth, "/auth/session", "not-a-token")
    expect(await outcome.response.json()).toBeNull()
    expect(outcome.cookie).toBe("deleted")
    expect(log.errors).toEqual([])
    expect(log.warnings).toEqual([["session-cookie-unreadable", expect.objectContaining({ cookie: COOKIE })]])
  })
})
