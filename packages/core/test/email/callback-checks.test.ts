import { createHash } from "node:crypto"
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter, VerificationToken } from "@portcullis/core/adapters"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../helpers.js"
import { MAX_TOKEN_LENGTH } from "../../src/lib/email/token.js"
import { redirectOf, requestLink } from "./support.js"

/**
 * The magic-link callback's own checks (`lib/kinds/email.ts`), each through `Auth()`: the
 * signIn callback asked again when the link is opened, the address floor behind a custom
 * normaliser, the bounds on what a link may carry, the expiry and address checks on the row
 * a store hands back (stores differ: some return expired rows, some compare identifiers
 * without case), the first-user race, and the log saying why a link was refused.
 */
afterEach(() => vi.restoreAllMocks())

/** A mailer that keeps the links instead of sending them. */
function keptLinks(extra: Partial<EmailConfig> = {}) {
  const links = new Map<string, string>()
  const provider = {
    id: "email",
    type: "email",
    name: "Email",
    interstitial: false,
    sendVerificationRequest: async ({ identifier, url }: { identifier: string; url: string }) => void links.set(identifier, url),
    ...extra,
  } as EmailConfig
  return { provider, linkFor: (address: string) => links.get(address) }
}

/**
 * Verification-token methods as a store without native expiry keeps them: a row is returned
 * as stored, expired or not. With `caseInsensitive`, identifiers are compared as MySQL's
 * default collation compares them.
 */
function plainTokens(adapter: Adapter, { caseInsensitive = false } = {}): Adapter {
  const rows = new Map<string, VerificationToken>()
  const key = (identifier: string, token: string) => `${caseInsensitive ? identifier.toLowerCase() : identifier}\n${token}`
  return {
    ...adapter,
    async createVerificationToken(row) {
      rows.set(key(row.identifier, row.token), { ...row })
      return row
    },
    async useVerificationToken({ identifier, token }) {
      const found = rows.get(key(identifier, token)) ?? null
      rows.delete(key(identifier, token))
      return found
    },
  }
}

function app(extra: Partial<AuthConfig> = {}, mail = keptLinks()) {
  const adapter = (extra.adapter as Adapter | undefined) ?? MemoryAdapter()
  const capture = captureLogger()
  const signIn = vi.fn()
  const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [mail.provider], logger: capture.logger, events: { signIn }, ...extra, adapter }
  return { adapter, config, lines: capture.lines, signIn, linkFor: mail.linkFor, browser: () => new Browser(direct(config)) }
}

/** A link to the callback for a raw token and address, as Auth.js or Portcullis would have mailed it. */
function linkTo(token: string, email: string): string {
  return `/auth/callback/email?${new URLSearchParams({ token, email })}`
}

/** Stores the row a link for `token` and `email` would be looked up by. */
async function plant(adapter: Adapter, email: string, token: string, expires = new Date(Date.now() + 3_600_000)) {
  const hashed = createHash("sha256").update(`${token}${SECRET}`).digest("hex")
  await adapter.createVerificationToken!({ identifier: email, token: hashed, expires })
  return hashed
}

const signedIn = (browser: Browser) => browser.sessionCookie() !== undefined

describe("the signIn callback when the link is opened", () => {
  it("is asked again, with the user the sign-in will produce, and a refusal there signs nobody in", async () => {
    const seen: unknown[] = []
    const { browser, linkFor, adapter } = app({
      callbacks: {
        // The app lets everyone ask for a link and decides when it is used (e.g. an address banned meanwhile).
        signIn: ({ user, email }) => (seen.push({ user, verificationRequest: email?.verificationRequest }), !!email?.verificationRequest),
      },
    })
    await requestLink(browser(), "new@example.com")
    const b = browser()
    const response = await b.request(linkFor("new@example.com")!)
    expect(redirectOf(response).error).toBe("AccessDenied")
    expect(signedIn(b)).toBe(false)
    expect(await adapter.getUserByEmail!("new@example.com")).toBeNull()
    expect(seen[1]).toMatchObject({ user: { email: "new@example.com", emailVerified: null }, verificationRequest: undefined })
  })

  it("answering with a URL there sends the browser to it, signed out (the link is used, no session, no user)", async () => {
    const { browser, linkFor, adapter } = app({
      callbacks: { signIn: ({ email }) => (email?.verificationRequest ? true : "http://localhost:3000/pending-approval") },
    })
    await requestLink(browser(), "new@example.com")
    const b = browser()
    const response = await b.request(linkFor("new@example.com")!)
    expect(response.headers.get("location")).toBe("http://localhost:3000/pending-approval")
    expect(signedIn(b)).toBe(false)
    expect(await adapter.getUserByEmail!("new@example.com")).toBeNull()
  })
})

describe("a custom normalizeIdentifier", () => {
  it.each([
    ["a header injection", "ada@example.com\r\nBcc: everyone@example.com"],
    ["no @ at all", "ada.example.com"],
  ])("returning %s is refused by the address floor behind it: nothing is mailed", async (_label, returned) => {
    const mail = keptLinks({ normalizeIdentifier: () => returned })
    const { browser } = app({}, mail)
    const response = await requestLink(browser(), "ada@example.com")
    expect(redirectOf(response).error).toBe("EmailSignin")
    expect(mail.linkFor(returned)).toBeUndefined()
  })

  it("that throws is refused as EmailSignin, and the log gives the reason code, not the input", async () => {
    const mail = keptLinks({
      normalizeIdentifier: () => {
        throw new Error("no such domain")
      },
    })
    const { browser, lines } = app({}, mail)
    const response = await requestLink(browser(), "ada@example.com")
    expect(redirectOf(response).error).toBe("EmailSignin")
    expect(lines.join("\n")).toContain("normalizeIdentifier-threw")
    expect(lines.join("\n")).toMatch(/"reason":"normalizeIdentifier-threw"/)
  })
})

describe("what a link may carry", () => {
  it("a token of the longest accepted length opens; one character more is refused and consumes nothing", async () => {
    const { adapter, browser } = app()
    const longest = "a".repeat(MAX_TOKEN_LENGTH)
    await plant(adapter, "long@example.com", longest)
    const b = browser()
    await b.request(linkTo(longest, "long@example.com"))
    expect(signedIn(b)).toBe(true)

    const tooLong = "a".repeat(MAX_TOKEN_LENGTH + 1)
    const hashed = await plant(adapter, "longer@example.com", tooLong)
    const c = browser()
    expect(redirectOf(await c.request(linkTo(tooLong, "longer@example.com"))).error).toBe("Verification")
    expect(signedIn(c)).toBe(false)
    expect(await adapter.useVerificationToken!({ identifier: "longer@example.com", token: hashed })).not.toBeNull()
  })

  it("an address of 320 characters (the longest a mailbox may have) opens; 321 is refused and consumes nothing", async () => {
    const { adapter, browser } = app()
    const address = (length: number) => `${"a".repeat(64)}@${"d".repeat(length - 64 - 1 - 4)}.com`
    const token = "b".repeat(64)
    await plant(adapter, address(320), token)
    const b = browser()
    await b.request(linkTo(token, address(320)))
    expect(signedIn(b)).toBe(true)

    const hashed = await plant(adapter, address(321), token)
    const c = browser()
    expect(redirectOf(await c.request(linkTo(token, address(321)))).error).toBe("Verification")
    expect(signedIn(c)).toBe(false)
    expect(await adapter.useVerificationToken!({ identifier: address(321), token: hashed })).not.toBeNull()
  })
})

describe("the row a store hands back", () => {
  it("from a store that returns expired rows, is refused once its expiry is reached (at that very millisecond)", async () => {
    const now = Date.now()
    const { adapter, browser } = app({ adapter: plainTokens(MemoryAdapter()) })
    await plant(adapter, "ada@example.com", "c".repeat(64), new Date(now))
    vi.spyOn(Date, "now").mockReturnValue(now)
    const b = browser()
    expect(redirectOf(await b.request(linkTo("c".repeat(64), "ada@example.com"))).error).toBe("Verification")
    expect(signedIn(b)).toBe(false)
  })

  it("from a store comparing identifiers without case (MySQL's default collation), is refused for a link naming the address in other case", async () => {
    const { adapter, browser, linkFor } = app({ adapter: plainTokens(MemoryAdapter(), { caseInsensitive: true }) })
    await requestLink(browser(), "ada@example.com")
    const link = new URL(linkFor("ada@example.com")!, "http://localhost:3000")
    link.searchParams.set("email", "ADA@example.com")
    const b = browser()
    expect(redirectOf(await b.request(link.href)).error).toBe("Verification")
    expect(signedIn(b)).toBe(false)
    expect(await adapter.getUserByEmail!("ADA@example.com")).toBeNull()
  })
})

describe("who the link signs in", () => {
  it("a verified user is signed in as an existing user (isNewUser false)", async () => {
    const { adapter, browser, linkFor, signIn } = app()
    await adapter.createUser!({ id: "ada", email: "ada@example.com", emailVerified: new Date() })
    await requestLink(browser(), "ada@example.com")
    const b = browser()
    await b.request(linkFor("ada@example.com")!)
    expect(signedIn(b)).toBe(true)
    expect(signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: false, user: expect.objectContaining({ id: "ada" }) }))
  })

  it("a new address whose user another request created first (the insert lost the race) signs in as that user, and only the winner reports the verification", async () => {
    const memory = MemoryAdapter()
    const audited: { type: string }[] = []
    const racing: Adapter = {
      ...memory,
      // The other request's insert lands first; this one hits the unique address.
      async createUser(user) {
        await memory.createUser!({ ...user, id: "winner" })
        throw new Error("duplicate key value violates unique constraint on email")
      },
    }
    const { browser, linkFor, signIn } = app({ adapter: racing, events: { audit: (event) => void audited.push(event) } })
    signIn.mockClear()
    await requestLink(browser(), "new@example.com")
    const b = browser()
    await b.request(linkFor("new@example.com")!)
    expect(signedIn(b)).toBe(true)
    expect((await b.session()).user.email).toBe("new@example.com")
    expect(audited.filter((event) => event.type === "emailVerified")).toEqual([])
  })
})

describe("the log says why a link was refused", () => {
  it.each([
    ["a link without its token", (_adapter: Adapter) => linkTo("", "ada@example.com"), /missing its token or address/],
    ["a link naming another namespace's row", (_adapter: Adapter) => linkTo("d".repeat(64), "password-reset:ada@example.com"), /names a record that is not a sign-in link/],
    ["an unknown token", (_adapter: Adapter) => linkTo("e".repeat(64), "ada@example.com"), /unknown or was already used/],
  ])("%s", async (_label, link, reason) => {
    const { adapter, browser, lines } = app()
    const response = await browser().request(link(adapter))
    expect(redirectOf(response).error).toBe("Verification")
    expect(lines.join("\n")).toMatch(reason)
  })

  it("an expired row, from a store that returns it", async () => {
    const { adapter, browser, lines } = app({ adapter: plainTokens(MemoryAdapter()) })
    await plant(adapter, "ada@example.com", "f".repeat(64), new Date(Date.now() - 1000))
    await browser().request(linkTo("f".repeat(64), "ada@example.com"))
    expect(lines.join("\n")).toMatch(/The sign-in link has expired/)
  })

  it("a row for another address, from a store comparing identifiers without case", async () => {
    const { adapter, browser, lines } = app({ adapter: plainTokens(MemoryAdapter(), { caseInsensitive: true }) })
    await plant(adapter, "ada@example.com", "9".repeat(64))
    await browser().request(linkTo("9".repeat(64), "Ada@Example.com"))
    expect(lines.join("\n")).toMatch(/does not match its address/)
  })
})
