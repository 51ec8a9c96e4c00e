/**
 * The unverified mark (T67, `lib/session/unverified-mark.ts`) on a JWT session check: a
 * session issued while its user was unverified is confirmed with the adapter; the mark and
 * its last confirmation are Portcullis's claims, so a jwt callback that rebuilds the token
 * keeps them; the adapter's confirmation restarts the edge's clock (re-issuing the cookie
 * for that alone once half of `unverifiedMaxAge` is gone); a configuration without the
 * adapter carries the old confirmation over unchanged and, past the limit, answers no
 * session but keeps the cookie.
 */
import { describe, expect, it } from "vitest"
import type { JWT } from "@portcullis/core/jwt"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { check, cookieOf, now, recordingLogger, runtime } from "./jwt-support.js"

const HOUR = 3600
/** A jwt callback that builds a new token from scratch, as many apps' callbacks do. */
const rebuild = ({ token }: { token: JWT }) => ({ sub: token.sub, name: token.name, email: token.email, role: "reader" })

async function unverifiedUser() {
  const adapter = MemoryAdapter()
  const user = await adapter.createUser!({ id: "user-una", name: "Una", email: "una@example.com", emailVerified: null })
  return { adapter, user }
}

describe("with the adapter: a marked session whose user is still unverified", () => {
  it("keeps the mark through a jwt callback that rebuilds the token, and restarts the confirmation clock", async () => {
    const { adapter, user } = await unverifiedUser()
    const auth = runtime({ adapter, callbacks: { jwt: rebuild } })
    const marked = now() - HOUR
    const { session, claims } = await check(auth, await cookieOf({ sub: user.id, name: "Una", email: user.email, pcl_unverified: marked, pcl_confirmed: marked }))
    expect(session?.user?.name).toBe("Una")
    expect(claims).toMatchObject({ role: "reader", pcl_unverified: marked })
    expect(claims!.pcl_confirmed).toBeGreaterThanOrEqual(now() - 1)
  })

  it("re-issues an unchanged token only to refresh its confirmation, once half of unverifiedMaxAge has passed", async () => {
    const { adapter, user } = await unverifiedUser()
    const auth = runtime({ adapter, session: { unverifiedMaxAge: 2 * HOUR } })
    const marked = now() - 3 * HOUR
    const due = await check(auth, await cookieOf({ sub: user.id, pcl_unverified: marked, pcl_confirmed: now() - HOUR }))
    expect(due.claims).toMatchObject({ sub: user.id, pcl_unverified: marked })
    expect(due.claims!.pcl_confirmed).toBeGreaterThanOrEqual(now() - 1)

    const recent = await check(auth, await cookieOf({ sub: user.id, pcl_unverified: marked, pcl_confirmed: now() - HOUR + 60 }))
    expect(recent.session?.user).toBeDefined()
    expect(recent.cookie).toBeUndefined()
  })
})

describe("with the adapter: a marked session whose user was verified in place", () => {
  it("is re-issued without the mark or its confirmation, with everything else kept", async () => {
    const { adapter, user } = await unverifiedUser()
    const auth = runtime({ adapter })
    const marked = now() - HOUR
    await adapter.updateUser!({ id: user.id, emailVerified: new Date() })
    const { session, claims } = await check(auth, await cookieOf({ sub: user.id, name: "Una", email: user.email, pcl_unverified: marked, pcl_confirmed: marked }))
    expect(session?.user).toEqual({ name: "Una", email: "una@example.com" })
    expect(claims).toMatchObject({ sub: user.id, name: "Una", email: "una@example.com" })
    expect(claims).not.toHaveProperty("pcl_unverified")
    expect(claims).not.toHaveProperty("pcl_confirmed")
  })

  it("is re-issued without the mark even through a jwt callback that copies every claim", async () => {
    const { adapter, user } = await unverifiedUser()
    const auth = runtime({ adapter, callbacks: { jwt: ({ token }) => ({ ...token }) } })
    await adapter.updateUser!({ id: user.id, emailVerified: new Date() })
    const { claims } = await check(auth, await cookieOf({ sub: user.id, name: "Una", pcl_unverified: now() - HOUR }))
    expect(claims).toMatchObject({ sub: user.id, name: "Una" })
    expect(claims).not.toHaveProperty("pcl_unverified")
  })
})

describe("with the adapter: a marked session whose user is gone", () => {
  it("is no session, and the cookie is deleted", async () => {
    const { adapter, user } = await unverifiedUser()
    const auth = runtime({ adapter })
    await adapter.deleteUser!(user.id)
    const { session, cookie } = await check(auth, await cookieOf({ sub: user.id, pcl_unverified: now() - HOUR }))
    expect(session).toBeNull()
    expect(cookie).toBe("deleted")
  })
})

describe("without the adapter (an edge configuration)", () => {
  it("carries the mark and its last confirmation over unchanged, whatever the jwt callback returns", async () => {
    const marked = now() - HOUR
    const confirmed = now() - 600
    const auth = runtime({ callbacks: { jwt: ({ token }) => ({ ...rebuild({ token }), pcl_unverified: now(), pcl_confirmed: now() }) } })
    const { session, claims } = await check(auth, await cookieOf({ sub: "user-una", name: "Una", pcl_unverified: marked, pcl_confirmed: confirmed }))
    expect(session?.user?.name).toBe("Una")
    expect(claims).toMatchObject({ role: "reader", pcl_unverified: marked, pcl_confirmed: confirmed })
  })

  it("gives no confirmation to a token that had none, even when the jwt callback adds one", async () => {
    const marked = now() - HOUR
    const seen: JWT[] = []
    const auth = runtime({
      callbacks: {
        jwt: ({ token }) => ({ ...rebuild({ token }), pcl_confirmed: now() }),
        session: ({ session, token }) => (seen.push(token), session),
      },
    })
    const { claims } = await check(auth, await cookieOf({ sub: "user-una", pcl_unverified: marked }))
    expect(claims).toMatchObject({ pcl_unverified: marked })
    expect(claims).not.toHaveProperty("pcl_confirmed")
    expect(Object.keys(seen[0]!)).not.toContain("pcl_confirmed")
  })

  it("past unverifiedMaxAge since the last confirmation: no session, the cookie kept, and a debug line says why", async () => {
    const log = recordingLogger()
    const auth = runtime({ logger: log.logger, session: { unverifiedMaxAge: HOUR } })
    const { session, cookie } = await check(auth, await cookieOf({ sub: "user-una", pcl_unverified: now() - 3 * HOUR, pcl_confirmed: now() - 2 * HOUR }))
    expect(session).toBeNull()
    expect(cookie).toBeUndefined()
    expect(log.debug).toContain("An unverified user's session was not confirmed within session.unverifiedMaxAge; answered as no session, cookie kept")
  })
})

describe("an unmarked session", () => {
  it("gets no mark and no confirmation when a jwt callback re-issues it", async () => {
    const { adapter, user } = await unverifiedUser()
    const auth = runtime({ adapter, callbacks: { jwt: rebuild } })
    const { claims } = await check(auth, await cookieOf({ sub: user.id, name: "Una" }))
    expect(claims).toMatchObject({ sub: user.id, role: "reader" })
    expect(claims).not.toHaveProperty("pcl_unverified")
    expect(claims).not.toHaveProperty("pcl_confirmed")
  })
})
