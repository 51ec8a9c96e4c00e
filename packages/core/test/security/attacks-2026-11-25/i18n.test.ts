/**
 * Attacks on the i18n feature (lib/i18n, the `i18n` option): hostile `Accept-Language`
 * values and a hostile locale function must never reach the page unescaped or crash a
 * request; a catalog tag the runtime cannot format must fail at start-up, not when a
 * browser asks for it.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../../helpers.js"

const origin = "http://localhost:3000"

function emailConfig(extra: Partial<AuthConfig> = {}) {
  const sent: { locale: string; text: string }[] = []
  const config: AuthConfig = {
    ...credentialsConfig(),
    adapter: MemoryAdapter(),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [
      {
        id: "email",
        type: "email",
        name: "Email",
        maxAge: 24 * 3600,
        async sendVerificationRequest({ language }: { language: { locale: string; messages: { text: string } } }) {
          sent.push({ locale: language.locale, text: JSON.stringify(language.messages) })
        },
      } as never,
    ],
    ...extra,
  }
  return { config, sent }
}

async function emailSignIn(config: AuthConfig, acceptLanguage: string) {
  const csrf = await Auth(new Request(`${origin}/auth/csrf`), config)
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  return Auth(
    new Request(`${origin}/auth/signin/email`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", "accept-language": acceptLanguage },
      body: new URLSearchParams({ csrfToken, email: "ada@example.com" }),
    }),
    config,
  )
}

describe("a catalog tag Intl cannot format", () => {
  // `de-de-de` passed the option's check; the first German-Swiss-ish browser to ask for it
  // made the email's duration throw, and that user's sign-in email was never sent.
  for (const tag of ["de-de-de", "en-a", "it-x"]) {
    it(`${tag} is a configuration error at once, not a failure when a browser asks for it`, async () => {
      const errors: unknown[] = []
      const { config } = emailConfig({ i18n: { messages: { [tag]: { signin: { heading: "x" } } } }, logger: { error: (e) => errors.push(e), warn: () => {} } })
      const response = await Auth(new Request(`${origin}/auth/signin`, { headers: { "accept-language": "en" } }), config)
      expect(response.status).toBe(500)
      expect(errors.map((e) => (e as { type?: string }).type)).toContain("InvalidConfig")
    })
  }
})

describe("a locale function that throws on hostile input", () => {
  // The app reads its own language cookie; `lang=%E0%A4%A` makes decodeURIComponent throw.
  // Every page answered a 302 to /auth/error, and the error page — rendered with the same
  // function — answered a 302 to itself: a redirect loop for anyone holding that cookie
  // (which a sibling subdomain can set: one cookie breaks the victim's sign-in).
  const throwing = (logged: unknown[]) =>
    credentialsConfig({
      i18n: { locale: (request) => decodeURIComponent(/lang=([^;]*)/.exec(request.headers.get("cookie") ?? "")?.[1] ?? "") || undefined },
      logger: { error: (e) => void logged.push(e), warn: () => {} },
    })

  for (const path of ["signin", "signout", "verify-request", "error?error=Verification"]) {
    it(`/${path} still renders (in the Accept-Language language), and the failure is logged`, async () => {
      const logged: unknown[] = []
      const response = await Auth(new Request(`${origin}/auth/${path}`, { headers: { cookie: "lang=%E0%A4%A", "accept-language": "de" } }), throwing(logged))
      expect(response.headers.get("location")).toBeNull()
      expect([200, 403]).toContain(response.status)
      expect(await response.text()).toContain('<html lang="de"')
      expect(logged.length).toBeGreaterThan(0)
    })
  }

  it("the error page never redirects to itself, whatever fails while rendering it", async () => {
    const config = credentialsConfig({ i18n: { locale: () => { throw new Error("boom") } }, logger: { error: () => {}, warn: () => {} } })
    let path = "/auth/signin"
    const seen: string[] = []
    for (let hop = 0; hop < 3; hop++) {
      const response = await Auth(new Request(`${origin}${path}`), config)
      const location = response.headers.get("location")
      if (!location) break
      expect(seen).not.toContain(location)
      seen.push(location)
      path = new URL(location).pathname + new URL(location).search
    }
  })
})

describe("what held", () => {
  const hostile = [
    '"><script>alert(1)</script>',
    "de;q=1.0000000000000001, en;q=0.5",
    "-".repeat(5000),
    "a-".repeat(600) + "de",
    "de".padEnd(1100, ",") + "ja",
    "*;q=1, zh-Hant-TW-x-private;q=0.9",
    "\u00ff\u00fe, de",
    "ar;q=0.9, en;q=0.9",
    "en-US;q=NaN, de;q=Infinity, fr;q=-1, ja",
  ]
  for (const value of hostile) {
    it(`the sign-in page answers 200 with an offered language for Accept-Language ${JSON.stringify(value.slice(0, 40))}`, async () => {
      const response = await Auth(new Request(`${origin}/auth/signin`, { headers: { "accept-language": value } }), credentialsConfig())
      const body = await response.text()
      expect(response.status).toBe(200)
      expect(/<html lang="(en|de|fr|es|pt|ja|zh|ar)" dir="(ltr|rtl)"/.test(body)).toBe(true)
      expect(body).not.toContain("<script>alert(1)")
    })
  }

  it("a locale function returning markup or a huge string picks no language, and the page stays well-formed", async () => {
    for (const chosen of ['de"><script>alert(1)</script>', "de-".repeat(2000), "__proto__", "constructor"]) {
      const config = credentialsConfig({ i18n: { locale: () => chosen } })
      const response = await Auth(new Request(`${origin}/auth/signin`, { headers: { "accept-language": "fr" } }), config)
      const body = await response.text()
      expect(response.status).toBe(200)
      expect(body).not.toContain("<script>alert(1)")
      expect(/<html lang="(de|fr)" dir="ltr"/.test(body)).toBe(true)
    }
  })

  it("an email sign-in in a hostile Accept-Language is sent in an offered language", async () => {
    const { config, sent } = emailConfig()
    const response = await emailSignIn(config, "\u00ff-x, ja-JP;q=0.9, zh-Hant;q=0.95")
    expect(response.status).toBe(302)
    expect(sent.map((s) => s.locale)).toEqual(["ja"])
  })

  it("the link-confirmation page in German and Arabic escapes an address a crafted link carries", async () => {
    const { config } = emailConfig()
    ;(config.providers[0] as { interstitial?: boolean }).interstitial = true
    for (const [email, escaped] of [
      ['"><img src=x onerror=alert(1)>@example.com', "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;@example.com"],
      ["a'onfocus='alert`1`'&b@example.com", "a&#39;onfocus=&#39;alert`1`&#39;&amp;b@example.com"],
    ] as const) {
      for (const language of ["de", "ar"]) {
        const url = `${origin}/auth/callback/email?token=abc&email=${encodeURIComponent(email)}`
        const response = await Auth(new Request(url, { headers: { "accept-language": language } }), config)
        const body = await response.text()
        expect(response.status).toBe(200)
        expect(body).toContain(`<html lang="${language}"`)
        expect(body).not.toContain("<img src=x")
        expect(body).not.toContain("'onfocus='")
        expect(body).toContain(escaped)
      }
    }
  })
})
