import { describe, expect, it } from "vitest"
import { messages } from "../src/messages.js"
import { authorizeUrl, testbed } from "./support.js"

describe("the provider's sentences", () => {
  it("exist in the eight languages with every key and the same placeholders", () => {
    expect(Object.keys(messages).sort()).toEqual(["ar", "de", "en", "es", "fr", "ja", "pt", "zh"])
    const en = messages.en!
    for (const [lang, catalog] of Object.entries(messages)) {
      expect(Object.keys(catalog).sort(), lang).toEqual(Object.keys(en).sort())
      for (const [key, text] of Object.entries(catalog)) {
        expect(text.match(/\{\w+\}/g)?.sort() ?? [], `${lang} ${key}`).toEqual(en[key as keyof typeof en].match(/\{\w+\}/g)?.sort() ?? [])
        expect(text.trim().length, `${lang} ${key}`).toBeGreaterThan(0)
      }
    }
  })

  it("render the consent page in the browser's language, right to left in Arabic", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const de = await (await ada.browser.request(authorizeUrl({}), { headers: { "accept-language": "de" } })).text()
    expect(de).toContain("Erlauben")
    expect(de).toContain("Ihre E-Mail-Adresse sehen")
    const ar = await (await ada.browser.request(authorizeUrl({}), { headers: { "accept-language": "ar" } })).text()
    expect(ar).toMatch(/dir="rtl"/)
    expect(ar).toContain("سماح")
  })

  it("escape a client's name and a scope shown on the page", async () => {
    const bed = testbed({ provider: { scopes: ["<b>x</b>"], clients: [{ clientId: "web", clientSecret: "web-client-secret-with-plenty-of-entropy-0123456789", redirectUris: ["https://rp.example/callback"], name: '<script>alert(1)</script>' }] } })
    const ada = await bed.person("ada")
    const page = await (await ada.browser.request(authorizeUrl({ scope: "openid <b>x</b>" }))).text()
    expect(page).not.toContain("<script>alert(1)</script>")
    expect(page).not.toContain("<b>x</b>")
    expect(page).toContain("&lt;script&gt;")
  })
})
