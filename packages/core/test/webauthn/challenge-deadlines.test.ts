import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, direct, SECRET } from "../helpers.js"
import { SoftCredential } from "./soft-authenticator.js"
import { authenticators, expectRefused, ORIGIN, PasskeyBrowser } from "./support.js"

/**
 * A passkey challenge's two deadlines (`lib/webauthn/challenge.ts`): the one sealed in its
 * cookie (the ceremony's timeout plus a minute) and the expiry of its record in the store.
 * Each is checked on its own — a store may keep a row longer than asked, or return an
 * expired one — and a challenge is good up to and including its last millisecond. Every
 * refusal is the same to the client; the log says which check refused.
 */
afterEach(() => vi.restoreAllMocks())

/** `adapter` with every challenge record's expiry rewritten as the store would keep it. */
function storedExpiry(adapter: Adapter, rewrite: (expires: Date) => unknown): Adapter {
  return {
    ...adapter,
    createVerificationToken: (row) => adapter.createVerificationToken!({ ...row, expires: rewrite(row.expires) as Date }),
  }
}

/** Verification tokens returned as stored, expired or not (a store without native expiry). */
function returnsExpired(adapter: Adapter): Adapter {
  const rows = new Map<string, { identifier: string; token: string; expires: Date }>()
  return {
    ...adapter,
    async createVerificationToken(row) {
      rows.set(`${row.identifier}\n${row.token}`, row)
      return row
    },
    async useVerificationToken({ identifier, token }) {
      const row = rows.get(`${identifier}\n${token}`) ?? null
      rows.delete(`${identifier}\n${token}`)
      return row
    },
  }
}

function setup(adapter: Adapter = MemoryAdapter()) {
  const capture = captureLogger()
  const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: capture.logger }
  return { adapter, lines: capture.lines, browser: () => new PasskeyBrowser(direct(config), ORIGIN) }
}

/** Asks for sign-up options at `issuedAt` and returns them with the challenge's last valid millisecond. */
async function signUpOptions(b: PasskeyBrowser, email: string, issuedAt: number) {
  const clock = vi.spyOn(Date, "now").mockReturnValue(issuedAt)
  const { body } = await b.options({ action: "register", email })
  clock.mockRestore()
  return { options: body.options, lastMillisecond: issuedAt + body.options.timeout + 60_000 }
}

/** Posts the credential's registration at `at` (ms since the epoch). */
async function registerAt(b: PasskeyBrowser, options: unknown, at: number) {
  vi.spyOn(Date, "now").mockReturnValue(at)
  const response = await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(options as any))
  vi.restoreAllMocks()
  return response
}

const T0 = Date.now()

describe("the deadline sealed in the challenge cookie", () => {
  it("accepts a response at the challenge's last millisecond", async () => {
    const { adapter, browser } = setup(returnsExpired(MemoryAdapter()))
    const b = browser()
    const { options, lastMillisecond } = await signUpOptions(b, "ada@example.com", T0)
    const response = await registerAt(b, options, lastMillisecond)
    expect(response.status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
    expect(await authenticators(adapter, "ada@example.com")).toHaveLength(1)
  })

  it("refuses one a millisecond later, even from a store that keeps the record longer", async () => {
    const { adapter, browser, lines } = setup(storedExpiry(MemoryAdapter(), (expires) => new Date(expires.getTime() + 3_600_000)))
    const b = browser()
    const { options, lastMillisecond } = await signUpOptions(b, "ada@example.com", T0)
    expectRefused(await registerAt(b, options, lastMillisecond + 1), b)
    expect(await authenticators(adapter, "ada@example.com")).toEqual([])
    expect(lines.join("\n")).toMatch(/The passkey challenge has expired/)
  })
})

describe("the expiry of the challenge's record", () => {
  it("refuses a record the store returns past its expiry, though the cookie's deadline is still ahead", async () => {
    // The store's row says the challenge ended a minute before the cookie does.
    const { adapter, browser, lines } = setup(storedExpiry(returnsExpired(MemoryAdapter()), (expires) => new Date(expires.getTime() - 60_000)))
    const b = browser()
    const { options, lastMillisecond } = await signUpOptions(b, "ada@example.com", T0)
    expectRefused(await registerAt(b, options, lastMillisecond - 30_000), b)
    expect(await authenticators(adapter, "ada@example.com")).toEqual([])
    expect(lines.join("\n")).toMatch(/The passkey challenge is unknown or was already used/)
  })

  it("refuses, and does not crash on, a record whose expiry comes back as text (as some SQL drivers return timestamps)", async () => {
    const { adapter, browser } = setup(storedExpiry(returnsExpired(MemoryAdapter()), (expires) => expires.toISOString()))
    const b = browser()
    const { body } = await b.options({ action: "register", email: "ada@example.com" })
    expectRefused(await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options)), b)
    expect(await authenticators(adapter, "ada@example.com")).toEqual([])
  })
})

describe("the log says which check refused", () => {
  it("no challenge cookie at all", async () => {
    const { browser, lines } = setup()
    const b = browser()
    const { body } = await b.options({ action: "register", email: "ada@example.com" })
    b.jar.delete("authjs.challenge")
    expectRefused(await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options)), b)
    expect(lines.join("\n")).toMatch(/The passkey challenge is missing or expired/)
  })

  it("a registration challenge answered as an authentication", async () => {
    const { browser, lines } = setup()
    const b = browser()
    const { body } = await b.options({ action: "register", email: "ada@example.com" })
    const credential = new SoftCredential(ORIGIN, "localhost")
    credential.register(body.options)
    expectRefused(await b.callback("authenticate", credential.authenticate({ ...body.options, rpId: "localhost", allowCredentials: [] })), b)
    expect(lines.join("\n")).toMatch(/issued for register, not authenticate/)
  })
})
