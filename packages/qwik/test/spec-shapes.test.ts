/**
 * Spec §1.7 (resumable integration): `getSession` resolves to `{ cookie, data }`, `data`
 * being the session or null. Qwik City loads only inside a Qwik app, so its wrappers are
 * identities here (as in hosts.test.ts); `getSession` itself needs none of them.
 */
import { describe, expect, it, vi } from "vitest"
import { encode } from "@portcullis/core/jwt"
import Credentials from "@portcullis/core/providers/credentials"

vi.mock("@builder.io/qwik", () => ({ implicit$FirstArg: (fn: (qrl: unknown) => unknown) => fn, inlinedQrl: (fn: unknown) => fn }))
vi.mock("@builder.io/qwik-city", () => ({
  globalActionQrl: (action: unknown, validator: unknown) => ({ action, validator }),
  routeLoaderQrl: (loader: unknown) => loader,
  validatorQrl: (validator: unknown) => validator,
}))

const { getSession } = await import("@portcullis/qwik")

const secret = "qwik-spec-test-secret-0123456789abcdef-0123"
const config = { secret, trustHost: true, providers: [Credentials({ credentials: {}, authorize: async () => null })] }

describe("getSession of the Qwik integration (§1.7)", () => {
  it("getSession resolves to { cookie, data }: data null signed out, the session signed in", async () => {
    const signedOut = await getSession(new Request("http://localhost:3000/dashboard"), config)
    expect(Object.keys(signedOut).sort()).toEqual(["cookie", "data"])
    expect(signedOut.data).toBeNull()
    expect(signedOut.cookie).toEqual([])

    const token = await encode({ token: { sub: "user-1", name: "Ada Lovelace", email: "ada@example.com" }, secret, salt: "authjs.session-token" })
    const signedIn = await getSession(new Request("http://localhost:3000/dashboard", { headers: { cookie: `authjs.session-token=${token}` } }), config)
    expect(Object.keys(signedIn).sort()).toEqual(["cookie", "data"])
    expect(signedIn.data).toMatchObject({ user: { name: "Ada Lovelace", email: "ada@example.com" }, expires: expect.any(String) })
    expect(Array.isArray(signedIn.cookie)).toBe(true)
  })
})
