/**
 * `host.deriveKeys`: a key per configured secret, newest first, so an extension can open what
 * it sealed before the secret was rotated (a new secret added on top of the old one).
 */
import { describe, expect, it } from "vitest"
import { defineExtension, type ExtensionHost } from "@portcullis/core/extension"
import { Browser, SECRET, credentialsConfig, direct } from "../helpers.js"

const NEWER = "a-newer-secret-with-at-least-32-characters!!"
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

async function hostOf(secret: string | string[]): Promise<ExtensionHost> {
  let host: ExtensionHost | undefined
  const extension = defineExtension({ id: "seal", setup: (h) => void (host = h), routes: [{ method: "GET", path: "ping", access: "anyone", handler: () => ({ json: {} }) }] })
  await new Browser(direct(credentialsConfig({ secret, extensions: [extension] }))).request("/auth/seal/ping")
  return host!
}

describe("host.deriveKeys", () => {
  it("gives one key per secret, newest first: the first is deriveKey's, the older secret's key is the one it gave before the rotation", async () => {
    const before = await hostOf(SECRET)
    const old = await before.deriveKey("keys")
    expect((await before.deriveKeys("keys")).map(hex)).toEqual([hex(old)])

    const rotated = await hostOf([NEWER, SECRET])
    const keys = await rotated.deriveKeys("keys")
    expect(keys).toHaveLength(2)
    expect(hex(keys[0]!)).toBe(hex(await rotated.deriveKey("keys")))
    expect(hex(keys[0]!)).not.toBe(hex(old))
    expect(hex(keys[1]!)).toBe(hex(old))
  })

  it("is bound to the extension and the purpose, as deriveKey is", async () => {
    const host = await hostOf([NEWER, SECRET])
    const [a] = await host.deriveKeys("keys")
    const [b] = await host.deriveKeys("other")
    expect(hex(a!)).not.toBe(hex(b!))
  })
})
