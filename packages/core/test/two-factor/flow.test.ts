/**
 * Issue 20, part 3: the second sign-in step. A user with two-factor authentication on gets
 * no session from the first factor — a challenge cookie and the code page instead — and
 * the session once a TOTP or backup code passes, exactly as the first factor would have
 * issued it.
 */
import { describe, expect, it } from "vitest"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import type { AuthConfig } from "@portcullis/core"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"
import { emailConfig, newBrowser, requestLink } from "../email/support.js"
import Credentials from "@portcullis/core/providers/credentials"
import { ada, direct } from "../helpers.js"

const CHALLENGE = "portcullis.two-factor"
const HOME = "http://localhost:3000"

describe("a user without two-factor authentication", () => {
  it("signs in with the first factor alone, as before", async () => {
    const { browser } = twoFactorApp()
    const response = await firstFactor(browser())
    expect(response.headers.get("location")).toBe(HOME)
  })
})

describe("a user with two-factor authentication on, signing in with credentials", () => {
  it("gets a challenge and the code page instead of a session", async () => {
    const { config, browser } = twoFactorApp()
    await enroll(config)
    const b = browser()
    const response = await firstFactor(b, "/dashboard")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect(b.sessionCookie()).toBeUndefined()
    expect(b.jar.has(CHALLENGE)).toBe(true)
    expect(b.jar.get(CHALLENGE)!.attributes["max-age"]).toBe("300")
    expect(await b.session()).toBeNull()
    const page = await b.request("/auth/two-factor")
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('name="code"')
    expect(html).toContain('autocomplete="one-time-code"')
    expect(html).toContain('name="csrfToken"')
  })

  it("gets the session, with the first factor's callback URL, for the current TOTP code", async () => {
    const signIns: unknown[] = []
    const { config, browser } = twoFactorApp({ events: { signIn: (message) => void signIns.push(message) } })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b, "/dashboard")
    expect(signIns).toHaveLength(0)
    const response = await secondFactor(b, totpCode(secret))
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/dashboard")
    expect(b.sessionCookie()).toBeDefined()
    expect(b.jar.has(CHALLENGE)).toBe(false)
    const session = await b.session()
    expect(session.user).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" })
    expect(signIns).toHaveLength(1)
    expect(signIns[0]).toMatchObject({ user: { id: ADA_ID }, account: { provider: "credentials" } })
  })

  it("hands the jwt callback exactly what authorize returned, custom fields included", async () => {
    const seen: unknown[] = []
    const { config, browser } = twoFactorApp({
      callbacks: {
        jwt: ({ token, user }) => {
          if (user) {
            seen.push(user)
            token.role = (user as { role?: string }).role
          }
          return token
        },
        session: ({ session, token }) => ({ ...session, role: token.role }),
      },
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: ({ username, password }) => (username === ada.username && password === ada.password ? { id: ADA_ID, name: "Ada Lovelace", role: "admin" } : null),
        }),
      ],
    })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    expect(seen).toHaveLength(0)
    await secondFactor(b, totpCode(secret))
    expect(seen).toEqual([expect.objectContaining({ id: ADA_ID, role: "admin" })])
    expect((await b.session()).role).toBe("admin")
  })

  it("re-renders the page with the attempts left for a wrong code, and issues nothing", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    const wrong = totpCode(secret) === "000000" ? "111111" : "000000"
    const response = await secondFactor(b, wrong)
    expect(response.status).toBe(401)
    const html = await response.text()
    expect(html).toContain("That code is not valid")
    expect(html).toContain("Attempts left: 4")
    expect(b.sessionCookie()).toBeUndefined()
    expect(await b.session()).toBeNull()
  })

  it("accepts a backup code once; the same code is refused on the next sign-in", async () => {
    const { config, browser } = twoFactorApp()
    const { backupCodes } = await enroll(config)
    expect(backupCodes).toHaveLength(10)
    const first = browser()
    await firstFactor(first)
    expect((await secondFactor(first, backupCodes[3]!.toUpperCase())).headers.get("location")).toBe(HOME)
    expect(first.sessionCookie()).toBeDefined()
    const second = browser()
    await firstFactor(second)
    expect((await secondFactor(second, backupCodes[3]!)).status).toBe(401)
    expect(second.sessionCookie()).toBeUndefined()
    expect((await secondFactor(second, backupCodes[4]!)).status).toBe(302)
  })

  it("refuses a TOTP code already used to sign in", async () => {
    const { config, browser } = twoFactorApp()
    const { secret } = await enroll(config)
    const code = totpCode(secret)
    const first = browser()
    await firstFactor(first)
    expect((await secondFactor(first, code)).status).toBe(302)
    const second = browser()
    await firstFactor(second)
    expect((await secondFactor(second, code)).status).toBe(401)
    expect(second.sessionCookie()).toBeUndefined()
  })

  it("skips the step on a device remembered with rememberDevice, and only for that user and enrollment", async () => {
    const { config, browser } = twoFactorApp({ twoFactor: { rememberDevice: 3600 } })
    const { secret } = await enroll(config)
    const b = browser()
    await firstFactor(b)
    expect(await (await b.request("/auth/two-factor")).text()).toContain('name="remember"')
    await secondFactor(b, totpCode(secret), { remember: "1" })
    expect(b.jar.get("portcullis.two-factor-device")?.attributes["max-age"]).toBe("3600")
    await b.signOut()
    expect((await firstFactor(b)).headers.get("location")).toBe(HOME)
    expect(b.sessionCookie()).toBeDefined()
    // A new enrollment (a new secret) forgets the remembered devices.
    await config.adapter!.deleteTwoFactor!(ADA_ID)
    await enroll(config)
    await b.signOut()
    expect((await firstFactor(b)).headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
  })

  it("turns the step off with twoFactor.enabled: false, enrolled users signing in with one factor", async () => {
    const adapter = MemoryAdapter()
    const on = twoFactorApp({}, adapter)
    await enroll(on.config)
    const off = twoFactorApp({ twoFactor: { enabled: false } }, adapter)
    expect((await firstFactor(off.browser())).headers.get("location")).toBe(HOME)
  })
})

describe("a user with two-factor authentication on, signing in by email link", () => {
  it("gets the challenge after following the link, and the session after the code", async () => {
    const adapter = MemoryAdapter()
    const links: string[] = []
    const config: AuthConfig = emailConfig(adapter, "smtp://127.0.0.1:9", { twoFactor: {} }, { sendVerificationRequest: ({ url }) => void links.push(url) })
    const user = await adapter.createUser!({ id: "user-grace", email: "grace@example.com", emailVerified: new Date() })
    const { secret } = await enroll(config, user.id)
    const b = newBrowser(direct(config))
    await requestLink(b, "grace@example.com", { callbackUrl: "/after" })
    const link = new URL(links[0]!)
    const callback = await b.request(link.pathname + link.search)
    expect(callback.headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
    expect(b.sessionCookie()).toBeUndefined()
    expect(await b.session()).toBeNull()
    const response = await secondFactor(b, totpCode(secret))
    expect(response.headers.get("location")).toBe("http://localhost:3000/after")
    // Database sessions (the adapter's default): the session row exists only now.
    expect(b.sessionCookie()).toBeDefined()
    expect((await b.session()).user.email).toBe("grace@example.com")
  })
})

describe("the code page's language", () => {
  it("follows Accept-Language like every built-in page (German, Japanese, Arabic right to left)", async () => {
    const { config, browser } = twoFactorApp()
    await enroll(config)
    const b = browser()
    await firstFactor(b)
    const page = async (language: string) => (await b.request("/auth/two-factor", { headers: { "accept-language": language } })).text()
    const de = await page("de-DE,de;q=0.9")
    expect(de).toContain('lang="de"')
    expect(de).toContain("Code eingeben")
    expect(await page("ja")).toContain("コードを入力してください")
    const ar = await page("ar")
    expect(ar).toContain('dir="rtl"')
    expect(ar).toContain("أدخل الرمز")
  })

  it("explains an expired step on the sign-in page in the user's language", async () => {
    const { browser } = twoFactorApp()
    const response = await browser().request("/auth/signin?error=TwoFactorChallengeInvalid", { headers: { "accept-language": "fr" } })
    expect(await response.text()).toContain("L’étape de vérification a expiré")
  })
})
