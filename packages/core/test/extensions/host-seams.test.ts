/**
 * Two seams of the extension API an OpenID Provider needs: a key derived from the
 * configuration's secret (`host.deriveKey`), to seal what it stores without holding the secret,
 * and when the session's user last authenticated (`req.authTime()`), for `auth_time`,
 * `max_age` and `prompt=login`.
 */
import { describe, expect, it } from "vitest"
import { defineExtension, type ExtensionHost } from "@portcullis/core/extension"
import { Browser, SECRET, credentialsConfig, direct } from "../helpers.js"

function keyed(id: string, into: Map<string, ExtensionHost>) {
  return defineExtension({
    id,
    setup: (host) => void into.set(id, host),
    routes: [{ method: "GET", path: "auth-time", access: "anyone", handler: async (req) => ({ json: { at: (await req.authTime())?.getTime() ?? null } }) }],
  })
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("host.deriveKey", () => {
  it("is 32 bytes, stable for one extension and purpose, different per extension, purpose and secret", async () => {
    const hosts = new Map<string, ExtensionHost>()
    const config = credentialsConfig({ extensions: [keyed("one", hosts), keyed("two", hosts)] })
    const browser = new Browser(direct(config))
    await browser.request("/auth/one/auth-time")
    const one = hosts.get("one")!
    const two = hosts.get("two")!
    const a = await one.deriveKey("seal")
    expect(a).toHaveLength(32)
    expect(hex(await one.deriveKey("seal"))).toBe(hex(a))
    expect(hex(await one.deriveKey("other"))).not.toBe(hex(a))
    expect(hex(await two.deriveKey("seal"))).not.toBe(hex(a))
    expect(hex(a)).not.toContain(Buffer.from(SECRET).toString("hex").slice(0, 16))

    const again = new Map<string, ExtensionHost>()
    await new Browser(direct(credentialsConfig({ extensions: [keyed("one", again)] }))).request("/auth/one/auth-time")
    expect(hex(await again.get("one")!.deriveKey("seal"))).toBe(hex(a))
    const rotated = new Map<string, ExtensionHost>()
    await new Browser(direct(credentialsConfig({ secret: "another-secret-with-at-least-32-characters!", extensions: [keyed("one", rotated)] }))).request("/auth/one/auth-time")
    expect(hex(await rotated.get("one")!.deriveKey("seal"))).not.toBe(hex(a))
  })
})

describe("req.authTime", () => {
  it("is null signed out, and the moment of the sign-in once signed in", async () => {
    const hosts = new Map<string, ExtensionHost>()
    const browser = new Browser(direct(credentialsConfig({ extensions: [keyed("one", hosts)] })))
    expect((await (await browser.request("/auth/one/auth-time")).json()).at).toBeNull()
    const before = Date.now()
    expect((await browser.signIn()).status).toBe(302)
    const after = Date.now()
    const { at } = await (await browser.request("/auth/one/auth-time")).json()
    // The mark's window is kept by the store in whole milliseconds: allow a little either side.
    expect(at).toBeGreaterThanOrEqual(before - 1000)
    expect(at).toBeLessThanOrEqual(after + 1000)
  })
})
