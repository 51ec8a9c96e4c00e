/**
 * The two patterns `lib/config/trusted-origins.ts` reads a `trustedOrigins` entry with:
 * the scheme and host of the whole entry, and a port only where it ends the host.
 *
 * They are module constants, built once when the module loads, so each test loads the module
 * anew (`vi.resetModules()`, then `import()`): a change to either pattern then shows here,
 * and mutation testing, which switches a mutant on after a file's static imports ran,
 * reaches them. Nothing here imports core statically, for the same reason.
 */
import { describe, expect, it, vi } from "vitest"

async function fresh() {
  vi.resetModules()
  return import("../../src/lib/config/trusted-origins.js")
}

async function refusal(pattern: string): Promise<string> {
  const { compileTrustedOrigins } = await fresh()
  try {
    compileTrustedOrigins([pattern])
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${JSON.stringify(pattern)} was accepted`)
}

describe("the scheme is the entry's first characters", () => {
  it("xhttps://app.example.com is no http(s) origin (no https:// is read from inside it)", async () => {
    expect(await refusal("xhttps://app.example.com")).toContain('trustedOrigins: "xhttps://app.example.com" is not an http(s) origin without a path')
  })

  it("https://app.example.com is one", async () => {
    const { compileTrustedOrigins } = await fresh()
    expect(compileTrustedOrigins(["https://app.example.com"]).has("https://app.example.com")).toBe(true)
  })
})

describe("a wildcard pattern's port is the digits that end it", () => {
  it("https://*.example.com:0x has no port :0 read from its middle: its host is no DNS name", async () => {
    expect(await refusal("https://*.example.com:0x")).toContain('trustedOrigins: "https://*.example.com:0x" has a host that is not a DNS name')
  })

  it("https://*.example.com:8443 has the port 8443", async () => {
    const { compileTrustedOrigins } = await fresh()
    const origins = compileTrustedOrigins(["https://*.example.com:8443"])
    expect(origins.has("https://app.example.com:8443")).toBe(true)
    expect(origins.has("https://app.example.com")).toBe(false)
  })
})
