/**
 * Review of the four fixes of 2026-11-27, by a tester who did not write them: each fix is
 * attacked from another side, and checked for what it may have broken for honest users.
 *
 * 1. Password rows as HMACs, and the email callback's address floor (`readLink`).
 * 2. JSON bodies nesting deeper than 32 levels are a 400 (`nestsWithin`).
 * 3. (Express: see packages/express/test/attacks-2026-11-27-fixes.test.ts.)
 * 4. One two-factor challenge, one session (`AttemptCounter.spend`).
 *
 * Real peers: Auth() in-process with the memory adapter, a real SMTP server on loopback.
 */
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Password from "@portcullis/core/providers/password"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct, SECRET } from "../../helpers.js"
import { extractLink, redirectOf, requestLink, startSmtp, type TestSmtp } from "../../email/support.js"
import { confirmVerification, STRONG } from "../../password/support.js"
import { enroll, firstFactor, secondFactor, twoFactorApp } from "../../two-factor/support.js"
import { emailPasswordApp, sessionSet } from "./support.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

const emailApp = (provider: { interstitial?: boolean } = {}, extra: Partial<AuthConfig> = {}) => emailPasswordApp(smtp.url, provider, extra)

/** A password link's row as it was stored before the HMAC: `sha256("portcullis-password-<purpose>:" + token + ":" + secret)`. */
const oldRow = (purpose: "verify" | "reset", token: string) => createHash("sha256").update(`portcullis-password-${purpose}:${token}:${SECRET}`).digest("hex")

/** The interstitial's hidden fields, unescaped the way a browser reads them. */
function confirmForm(html: string): Record<string, string> {
  const unescape = (s: string) => s.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
  const out: Record<string, string> = {}
  for (const name of ["csrfToken", "callbackUrl", "token", "email"]) {
    const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]
    if (value !== undefined) out[name] = unescape(value)
  }
  return out
}

describe("fix 1: a password token at the magic-link callback, through the interstitial's POST", () => {
  it("the confirmation form posted with a password-verify row's address and the old prefix signs nobody in", async () => {
    const { adapter, browser } = emailApp({ interstitial: true })
    const mallory = browser()
    const csrfToken = await mallory.csrfToken()
    await mallory.request("/auth/password/signup", { form: { email: "mallory@example.com", password: STRONG, csrfToken } })
    const verify = new URL(smtp.linkFor("mallory@example.com"))
    const token = verify.searchParams.get("token")!
    // A second verification link of hers, mailed before the HMAC shipped: its row is in the
    // old form, which the password endpoints still accept and the HMAC does not protect, so
    // only the callback's namespace refusal keeps it from being a sign-in link.
    const before = "5e".repeat(32)
    await adapter.createVerificationToken!({ identifier: "password-verify:mallory@example.com", token: oldRow("verify", before), expires: new Date(Date.now() + 3_600_000) })
    // Skip the GET page: post straight to the callback, as the button would.
    for (const [forged, email] of [
      [`portcullis-password-verify:${token}:`, "password-verify:mallory@example.com"],
      [`portcullis-password-verify:${before}:`, "password-verify:mallory@example.com"],
      [token, "password-verify:mallory@example.com"],
      [`portcullis-password-verify:${token}:`, "mallory@example.com"],
    ] as const) {
      const response = await mallory.request("/auth/callback/email", { form: { csrfToken: await mallory.csrfToken(), token: forged, email } })
      expect(sessionSet(response)).toBe(false)
      expect(redirectOf(response).error).toBe("Verification")
    }
    expect(await adapter.getUserByEmail!("password-verify:mallory@example.com")).toBeNull()
    // Behind the refusal, the HMAC alone: the row issued today does not answer to the forged
    // token's magic-link hash (`sha256(token + secret)`), the lookup the callback would make.
    const magicHash = createHash("sha256").update(`portcullis-password-verify:${token}:${SECRET}`).digest("hex")
    expect(await adapter.useVerificationToken!({ identifier: "password-verify:mallory@example.com", token: magicHash })).toBeNull()
    // The verification link itself is untouched and still verifies the sign-up.
    const used = await confirmVerification(mallory, verify.pathname + verify.search)
    expect(used.path).toBe("/auth/password/verified")
    expect(used.error).toBeNull()
  })

  it("the same forged link as JSON, against a real old-form reset row: the address plain, as an array, or with its colon spelled %3A or fullwidth, is refused and the row left", async () => {
    const { adapter, browser } = emailApp({ interstitial: true })
    // A real row for the forged token to find: a reset link of token "x" in the old form
    // (mailed before the HMAC), whose magic-link hash is exactly `sha256("portcullis-password-reset:x:" + secret)`.
    const row = { identifier: "password-reset:mallory@example.com", token: oldRow("reset", "x"), expires: new Date(Date.now() + 3_600_000) }
    await adapter.createVerificationToken!(row)
    const mallory = browser()
    for (const email of ["password-reset:mallory@example.com", ["password-reset:mallory@example.com"], "password-reset%3Amallory@example.com", "password-reset\uff1amallory@example.com", "webauthn-challenge:webauthn"]) {
      const response = await mallory.request("/auth/callback/email", { method: "POST", json: { csrfToken: await mallory.csrfToken(), token: "portcullis-password-reset:x:", email } })
      expect(response.status).toBeLessThan(500)
      expect(sessionSet(response)).toBe(false)
    }
    expect(await adapter.getUserByEmail!("password-reset:mallory@example.com")).toBeNull()
    // Nothing consumed the row: it is still there for the password endpoint it was made for.
    expect(await adapter.useVerificationToken!({ identifier: row.identifier, token: row.token })).toMatchObject({ identifier: row.identifier })
  })
})

describe("fix 1 broke nothing: links to legitimate addresses still sign in", () => {
  const addresses = ["o'brien+news@example.com", "ada.lovelace+a&b@bücher.example", "back`tick{x}|~@sub.example.co.uk", "UPPER.Case@Example.COM"]

  it.each(addresses)("a link Portcullis sent to %j opens (GET)", async (address) => {
    const { browser, adapter } = emailApp()
    const ada = browser()
    expect(redirectOf(await requestLink(ada, address)).path).toBe("/auth/verify-request")
    const link = new URL(extractLink(smtp.messages.at(-1)!.parsed.text ?? ""))
    const response = await ada.request(link.pathname + link.search)
    expect(redirectOf(response).error).toBeNull()
    expect(sessionSet(response)).toBe(true)
    expect(await adapter.getUserByEmail!(link.searchParams.get("email")!)).not.toBeNull()
  })

  it.each(addresses)("a link Portcullis sent to %j opens through the interstitial (GET page, POST button)", async (address) => {
    const { browser } = emailApp({ interstitial: true })
    const ada = browser()
    await requestLink(ada, address)
    const link = new URL(extractLink(smtp.messages.at(-1)!.parsed.text ?? ""))
    const page = await ada.request(link.pathname + link.search)
    expect(page.status).toBe(200)
    const form = confirmForm(await page.text())
    expect(form.email).toBe(link.searchParams.get("email"))
    const response = await ada.request("/auth/callback/email", { form })
    expect(redirectOf(response).error).toBeNull()
    expect(sessionSet(response)).toBe(true)
  })

  it("a custom normalizeIdentifier that keeps case and plus-tags: its links still open", async () => {
    const { browser } = emailApp({ normalizeIdentifier: (s: string) => s.trim() } as never)
    const ada = browser()
    await requestLink(ada, "  Ada+Work@Example.com ")
    const link = new URL(extractLink(smtp.messages.at(-1)!.parsed.text ?? ""))
    expect(link.searchParams.get("email")).toBe("Ada+Work@Example.com")
    const response = await ada.request(link.pathname + link.search)
    expect(sessionSet(response)).toBe(true)
  })

  /** A link as Auth.js mailed it before the move: its row (sha256(token + secret)) and URL. */
  async function authJsLink(adapter: ReturnType<typeof MemoryAdapter>, identifier: string): Promise<string> {
    const token = createHash("sha256").update(`auth-js-${identifier}`).digest("hex")
    const hashed = createHash("sha256").update(`${token}${SECRET}`).digest("hex")
    await adapter.createVerificationToken!({ identifier, token: hashed, expires: new Date(Date.now() + 3_600_000) })
    return `/auth/callback/email?${new URLSearchParams({ callbackUrl: "http://localhost:3000", token, email: identifier })}`
  }

  it("an Auth.js link made before migrating, for an ordinary address (lower-cased, trimmed, domain cut at a comma), still opens", async () => {
    const { adapter, browser } = emailApp()
    // Auth.js's default normaliser turned " Ada@Example.com,eve@x.com " into this identifier.
    const response = await browser().request(await authJsLink(adapter, "ada@example.com"))
    expect(redirectOf(response).error).toBeNull()
    expect(sessionSet(response)).toBe(true)
  })

  // Found by this review: the link check first refused every address the floor refuses,
  // which broke links Auth.js mailed before a migration to addresses its normaliser allows
  // (a domain literal, a comment, a quoted local part). It now refuses only the table's
  // other namespaces (`password-…:`, `webauthn-challenge:`).
  it.each(["ada@[192.0.2.7]", "ada(work)@example.com", `"ada lovelace"@example.com`])("an Auth.js link made before migrating for %j still opens", async (identifier) => {
    const { adapter, browser } = emailApp()
    const response = await browser().request(await authJsLink(adapter, identifier))
    expect(redirectOf(response).error).toBeNull()
    expect(sessionSet(response)).toBe(true)
  })
})

describe("fix 1 broke nothing: password links in flight when the HMAC format shipped", () => {
  // Found by this review: rows kept in the form before the HMAC were no longer found. The
  // password endpoints look for that form too when the HMAC finds nothing.
  it("a verification link issued before the upgrade (old sha256 row) still verifies the address", async () => {
    const { adapter, browser } = emailApp()
    const user = await adapter.createUser!({ id: crypto.randomUUID(), email: "grace@example.com", emailVerified: null, name: null, image: null })
    const token = "0f".repeat(32)
    const oldRow = createHash("sha256").update(`portcullis-password-verify:${token}:${SECRET}`).digest("hex")
    await adapter.createVerificationToken!({ identifier: "password-verify:grace@example.com", token: oldRow, expires: new Date(Date.now() + 3_600_000) })
    const response = await confirmVerification(browser(), `/auth/password/verify?${new URLSearchParams({ token, email: "grace@example.com" })}`)
    expect(response.error).toBeNull()
    // Confirmed without a password (the user has none to keep): a first verification under
    // T67, so the address is verified on a fresh user.
    expect(await adapter.getUser!(user.id)).toBeNull()
    expect((await adapter.getUserByEmail!("grace@example.com"))?.emailVerified).toBeInstanceOf(Date)
  })
})

describe("fix 2: JSON bodies and the depth limit", () => {
  const nest = (depth: number, open: string, close: string, leaf = "0") => `${open.repeat(depth)}${leaf}${close.repeat(depth)}`

  async function postJson(body: (csrfToken: string) => string, path = "/auth/callback/credentials") {
    const b = new Browser(direct(credentialsConfig({ logger: quiet })))
    const csrfToken = await b.csrfToken()
    return b.request(path, { method: "POST", body: body(csrfToken), headers: { "content-type": "application/json" } })
  }

  it("`__proto__` chains, objects in arrays and arrays in objects beyond 32 levels are a 400, never a 500", async () => {
    const shapes = [
      nest(5000, `{"__proto__":`, "}"),
      nest(5000, `[{"a":`, "}]"),
      nest(2500, `{"constructor":{"prototype":`, "}}"),
      `{"x":1${`,"k":[]`.repeat(1000)},"deep":${nest(40, "[", "]")}}`,
    ]
    for (const shape of shapes) {
      const response = await postJson((t) => `{"csrfToken":${JSON.stringify(t)},"username":${shape},"password":"x"}`)
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ error: "InvalidRequest" })
    }
  })

  it("the deep value in a late key, after 200 000 flat keys, is still found (no early stop)", async () => {
    const flat = Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(",")
    const response = await postJson((t) => `{"csrfToken":${JSON.stringify(t)},${flat},"z":${nest(33, "[", "]")}}`)
    expect(response.status).toBe(400)
  })

  it("a 1 MiB body of ~200 000 small nested arrays, or of many 30-deep chains (32 levels in all), is read and answered with the sign-in refusal", async () => {
    const small = Array.from({ length: 200_000 }, () => "[[]]").join(",").slice(0, 1024 * 1024 - 200)
    const cut = small.slice(0, small.lastIndexOf("[[]]") + 4)
    // Body object (level 1), "pad" (2), then 30 levels: exactly at the limit.
    const chain = nest(30, "[", "]")
    const chains = Array.from({ length: Math.floor((1024 * 1024 - 300) / (chain.length + 1)) }, () => chain).join(",")
    for (const [label, items] of [["small arrays", cut], ["30-deep chains", chains]] as const) {
      const started = performance.now()
      const response = await postJson((t) => `{"csrfToken":${JSON.stringify(t)},"username":"ada","password":"x","pad":[${items}]}`)
      const spent = performance.now() - started
      // Informational only (no timing assertion): what the walk costs on this machine.
      console.info(`[fixes-reviewed] 1 MiB JSON of ${label}: ${Math.round(spent)} ms, status ${response.status}`)
      // Read, not refused: the credentials callback's ordinary refusal (a redirect).
      expect(response.status).toBe(302)
      expect(redirectOf(response).error).toBe("CredentialsSignin")
    }
    const after = await postJson((t) => `{"csrfToken":${JSON.stringify(t)},"username":"ada","password":"wrong"}`)
    expect(after.status).toBeLessThan(500)
  })

  it("broke nothing: a session update whose `data` nests 20 levels still updates the session", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      session: { strategy: "jwt" },
      providers: credentialsConfig().providers,
      callbacks: {
        jwt({ token, trigger, session }) {
          if (trigger === "update") token.prefs = session
          return token
        },
        session({ session, token }) {
          return { ...session, prefs: token.prefs } as typeof session
        },
      },
    }
    const ada = new Browser(direct(config))
    await ada.signIn()
    let data: unknown = { theme: "dark" }
    for (let i = 0; i < 19; i++) data = { level: data }
    const response = await ada.request("/auth/session", { method: "POST", json: { csrfToken: await ada.csrfToken(), data } })
    expect(response.status).toBe(200)
    expect(((await ada.session()) as { prefs?: unknown }).prefs).toEqual(data)
  })
})

describe("fix 4: one challenge, one session, and honest users", () => {
  const challengeOf = (b: Browser) => b.cookieHeader()

  it("an honest double-click (the same code posted twice at once from one browser) ends signed in", async () => {
    const { config, browser } = twoFactorApp({ logger: quiet })
    const { secret } = await enroll(config)
    const ada = browser()
    await firstFactor(ada)
    const code = totpCode(secret)
    const [a, b] = await Promise.all([secondFactor(ada, code), secondFactor(ada, code)])
    expect([a.status, b.status].every((s) => s < 500)).toBe(true)
    expect(ada.sessionCookie()).toBeDefined()
    expect(((await ada.session()) as { user?: { email?: string } } | null)?.user?.email).toBe("ada@example.com")
  })

  it("an honest re-submit after the first answer (back button, the same code again) leaves the session standing", async () => {
    const { config, browser } = twoFactorApp({ logger: quiet })
    const { secret } = await enroll(config)
    const ada = browser()
    await firstFactor(ada)
    const stale = challengeOf(ada)
    const code = totpCode(secret)
    expect(sessionSet(await secondFactor(ada, code))).toBe(true)
    // The browser re-posts the old page: its stale challenge cookie beside the new session.
    const csrfToken = await ada.csrfToken()
    const again = await ada.request("/auth/two-factor", { form: { code, csrfToken }, headers: { cookie: `${ada.cookieHeader()}; ${stale}` } })
    expect(again.status).toBeLessThan(500)
    expect(again.headers.getSetCookie().some((c) => /^authjs\.session-token=;|^authjs\.session-token=[^;]*;.*Max-Age=0/i.test(c))).toBe(false)
    expect(((await ada.session()) as { user?: { email?: string } } | null)?.user?.email).toBe("ada@example.com")
  })

  it("remembered device: a double-click with remember=1 still yields a device cookie that skips the step next time", async () => {
    const { config, browser } = twoFactorApp({ logger: quiet, twoFactor: { rememberDevice: 3600 } })
    const { secret } = await enroll(config)
    const ada = browser()
    await firstFactor(ada)
    const code = totpCode(secret)
    await Promise.all([secondFactor(ada, code, { remember: "1" }), secondFactor(ada, code, { remember: "1" })])
    expect(ada.sessionCookie()).toBeDefined()
    await ada.signOut()
    expect(ada.sessionCookie()).toBeUndefined()
    const next = await firstFactor(ada)
    expect(new URL(next.headers.get("location")!).pathname).not.toBe("/auth/two-factor")
    expect(((await ada.session()) as { user?: { email?: string } } | null)?.user?.email).toBe("ada@example.com")
  })

  for (const mode of ["the same TOTP code", "different valid codes (TOTP now, TOTP next step, every backup code)"] as const) {
    it(`50 concurrent copies of one challenge with ${mode} open exactly one session`, async () => {
      const { config, browser } = twoFactorApp({ logger: quiet })
      const { secret, backupCodes } = await enroll(config)
      const ada = browser()
      await firstFactor(ada)
      const csrfToken = await ada.csrfToken()
      const cookie = ada.cookieHeader()
      const pool = mode === "the same TOTP code" ? [totpCode(secret)] : [totpCode(secret), totpCode(secret, Date.now() + 30_000), ...backupCodes]
      const copies = Array.from({ length: 50 }, (_, i) => ({ code: pool[i % pool.length]!, b: browser() }))
      const answers = await Promise.all(copies.map(({ code, b }) => b.request("/auth/two-factor", { form: { code, csrfToken }, headers: { cookie } })))
      expect(answers.every((r) => r.status < 500)).toBe(true)
      expect(copies.filter(({ b }) => b.sessionCookie() !== undefined)).toHaveLength(1)
    })
  }

  it("a copy replayed after the winner (sequentially, with a fresh valid code) is refused", async () => {
    const { config, browser } = twoFactorApp({ logger: quiet })
    const { secret, backupCodes } = await enroll(config)
    const ada = browser()
    await firstFactor(ada)
    const csrfToken = await ada.csrfToken()
    const cookie = ada.cookieHeader()
    const winner = browser()
    await winner.request("/auth/two-factor", { form: { code: totpCode(secret), csrfToken }, headers: { cookie } })
    expect(winner.sessionCookie()).toBeDefined()
    for (const code of [backupCodes[0]!, totpCode(secret, Date.now() + 30_000)]) {
      const late = browser()
      const response = await late.request("/auth/two-factor", { form: { code, csrfToken }, headers: { cookie } })
      expect(late.sessionCookie()).toBeUndefined()
      expect(redirectOf(response).error).toBe("TwoFactorChallengeInvalid")
    }
  })

  // Found by this review: the counter, capped at 10 000 challenges, dropped its oldest entries
  // first, a live spent mark included, so 10 000 challenges of the attacker's own (first
  // factor and one wrong code each) let a copy of a passed challenge sign in again. Now only
  // wrong-code counts are dropped over the cap; a live spent mark stays until it expires.
  it(
    "a copy of a spent challenge replayed after 10 000 other challenges (the counter's cap) is still refused",
    async () => {
      const users: Record<string, { id: string; email: string }> = {
        ada: { id: "user-ada", email: "ada@example.com" },
        mallory: { id: "user-mallory", email: "mallory@example.com" },
      }
      const base = credentialsConfig()
      const config: AuthConfig = {
        ...base,
        adapter: MemoryAdapter(),
        session: { strategy: "jwt" },
        twoFactor: {},
        logger: quiet,
        providers: [
          (await import("@portcullis/core/providers/credentials")).default({
            credentials: { username: {}, password: { type: "password" } },
            authorize: ({ username, password }) => (password === "pw" && typeof username === "string" && users[username] ? { ...users[username]!, name: username } : null),
          }),
        ],
      }
      const ada = await enroll(config, "user-ada")
      await enroll(config, "user-mallory")
      // Ada signs in; the attacker's copy of her challenge cookie is taken before she answers.
      const victim = new Browser(direct(config))
      await victim.signIn({ username: "ada", password: "pw" })
      const copied = victim.cookieHeader()
      const csrfToken = await victim.csrfToken()
      expect(sessionSet(await victim.request("/auth/two-factor", { form: { code: totpCode(ada.secret), csrfToken } }))).toBe(true)
      // Right after: the copy is refused (the fix).
      const early = await new Browser(direct(config)).request("/auth/two-factor", { form: { code: ada.backupCodes[0]!, csrfToken }, headers: { cookie: copied } })
      expect(redirectOf(early).error).toBe("TwoFactorChallengeInvalid")
      // The flood: 10 000 challenges of Mallory's own, each answered once (wrongly).
      const mallory = new Browser(direct(config))
      const own = await mallory.csrfToken()
      for (let i = 0; i < 10_000; i++) {
        await mallory.request("/auth/callback/credentials", { form: { username: "mallory", password: "pw", csrfToken: own } })
        await mallory.request("/auth/two-factor", { form: { code: "000000", csrfToken: own } })
      }
      // The copy again, with another of Ada's valid codes.
      const late = new Browser(direct(config))
      await late.request("/auth/two-factor", { form: { code: ada.backupCodes[1]!, csrfToken }, headers: { cookie: copied } })
      expect(late.sessionCookie()).toBeUndefined()
    },
    180_000,
  )
})
