/**
 * Issue 20, part 4: the sign-in email in the language of the request that asked for it,
 * through a real SMTP server, and the email link's confirmation page likewise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { renderVerificationEmail } from "@portcullis/core/providers/email"
import { builtInLocales, loadBuiltInCatalog } from "../../src/lib/i18n/index.js"
import { emailConfig, newBrowser, requestLink, startSmtp, type TestSmtp } from "../email/support.js"
import { direct, type Transport } from "../helpers.js"

// Core loads each language but English on first use; here, all of them up front.
const builtInCatalogs = Object.fromEntries(await Promise.all(builtInLocales.map(async (tag) => [tag, await loadBuiltInCatalog(tag)] as const)))

/** A transport whose every request carries `Accept-Language: language`, as a browser's would. */
function speaking(transport: Transport, language: string): Transport {
  return (request) => {
    const headers = new Headers(request.headers)
    headers.set("accept-language", language)
    return transport(new Request(request, { headers }))
  }
}

describe("the sign-in email", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  for (const [language, address, subject, expires] of [
    ["de-DE,de;q=0.9", "hans@example.com", "Bei localhost:3000 anmelden", "läuft in 24 Stunden ab"],
    ["ja", "hanako@example.com", "localhost:3000 へのサインイン", "24 時間後に無効になります"],
    ["en-US", "ada@example.com", "Sign in to localhost:3000", "expires in 24 hours"],
  ] as const) {
    it(`is written in the requester's language (${language})`, async () => {
      const browser = newBrowser(speaking(direct(emailConfig(MemoryAdapter(), smtp.url)), language))
      const answer = await requestLink(browser, address)
      expect(answer.status).toBe(302)
      const mail = smtp.messages.findLast((m) => m.to.includes(address))!
      expect(mail.parsed.subject).toBe(subject)
      expect(mail.parsed.text).toContain(expires)
      expect(mail.parsed.html).toContain(`lang="${language.slice(0, 2)}"`)
      // The link still works whatever the language.
      expect(smtp.linkFor(address)).toMatch(/^http:\/\/localhost:3000\/auth\/callback\/email\?/)
    })
  }

  it("renders in every built-in language, right to left in Arabic, with the link intact", () => {
    const url = "https://example.com/auth/callback/email?token=abc&email=a%40b.c"
    for (const [locale, catalog] of Object.entries(builtInCatalogs)) {
      const mail = renderVerificationEmail({ url, expires: new Date(Date.now() + 600_000), locale, dir: catalog.dir, messages: catalog.email })
      expect(mail.html).toContain(`<html lang="${locale}" dir="${catalog.dir}">`)
      expect(mail.html).toContain('href="https://example.com/auth/callback/email?token=abc&amp;email=a%40b.c"')
      expect(mail.text).toContain(url)
      expect(mail.subject).toContain("example.com")
      expect(mail.html).toContain(catalog.email.button)
    }
  })
})

describe("the email link's confirmation page", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("asks in the language of the browser that opened the link", async () => {
    const config = emailConfig(MemoryAdapter(), smtp.url, {}, { interstitial: true })
    const asker = newBrowser(direct(config))
    await requestLink(asker, "marie@example.com")
    const opener = newBrowser(speaking(direct(config), "fr-FR"))
    const page = await opener.request(smtp.linkFor("marie@example.com"))
    const body = await page.text()
    expect(page.status).toBe(200)
    expect(body).toContain('<html lang="fr" dir="ltr"')
    expect(body).toContain("Continuer en tant que <strong>marie@example.com</strong> ?")
  })
})
