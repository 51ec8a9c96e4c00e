/**
 * `req.accountSections()` (docs/extensions.md, "Account sections"): the sections extensions
 * add to the account center, asked in configuration order, each with its own locals,
 * catalog and session key; not asked while signed out; one that fails (a bug, its store
 * down, markup that is not `html`) logged and answered `unavailable`, never failing the
 * page or leaking what it threw. The account page's rendering: packages/account/test/sections.test.ts.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { defineExtension, html, type Extension, type ExtensionAccountSection } from "@portcullis/core/extension"
import { Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"

/** An extension with a section: its heading from its own catalog, its body naming its own locals and session key. */
function sectioned(id: string, options: { answer?: (locals: { name: string; store: { read(): Promise<string> } }) => Promise<ExtensionAccountSection | undefined>; failing?: () => boolean } = {}) {
  const asked: string[] = []
  const extension = defineExtension({
    id,
    setup: (host) => ({
      name: `locals of ${id}`,
      store: host.wrapStore(`${id} store`, {
        async read() {
          if (options.failing?.()) throw new Error("connect ECONNREFUSED 10.0.0.9:6379 password=hunter2")
          return "stored"
        },
      }),
    }),
    messages: { en: { heading: `${id} heading` }, de: { heading: `${id} Überschrift` } },
    routes: [{ method: "POST", path: "act", handler: () => ({ json: { acted: true } }) }],
    async accountSection({ session, locals, t, csrfToken, authUrl }) {
      asked.push(session.userId)
      if (options.answer) return options.answer(locals)
      return { heading: t("heading"), body: html`<p data-locals="${locals.name}" data-key="${session.key}">${await locals.store.read()}</p><form method="post" action="${`${authUrl}/${id}/act`}"><input type="hidden" name="csrfToken" value="${await csrfToken()}"></form>` }
    },
  })
  return { extension, asked }
}

/** The extension that asks: its page lists what `req.accountSections()` answered, as JSON. */
const center = defineExtension({
  id: "center",
  routes: [
    {
      method: "GET",
      path: "",
      access: "anyone",
      async handler(req) {
        const sections = await req.accountSections()
        const token = await req.csrfToken()
        return { json: { token, sections: sections.map((s) => ("unavailable" in s ? s : { id: s.id, heading: s.heading, body: s.body.toString() })) } }
      },
    },
  ],
})

function setup(extensions: Extension[], extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config = credentialsConfig({ extensions, logger: log.logger, ...extra })
  return { log, browser: new Browser(direct(config)) }
}

async function sectionsOf(browser: Browser, language = "en"): Promise<{ status: number; token: string; sections: any[] }> {
  const response = await browser.request("/auth/center", { headers: { "accept-language": language } })
  return { status: response.status, ...((await response.json()) as { token: string; sections: any[] }) }
}

describe("req.accountSections()", () => {
  it("asks every extension with a section, in configuration order, each with its own locals, catalog and session key", async () => {
    const beta = sectioned("beta")
    const alpha = sectioned("alpha")
    const { browser } = setup([beta.extension, center, alpha.extension])
    await browser.signIn()
    const { status, sections } = await sectionsOf(browser, "de")
    expect(status).toBe(200)
    expect(sections.map((s) => s.id)).toEqual(["beta", "alpha"])
    expect(sections.map((s) => s.heading)).toEqual(["beta Überschrift", "alpha Überschrift"])
    expect(sections[0].body).toContain('data-locals="locals of beta"')
    expect(sections[1].body).toContain('data-locals="locals of alpha"')
    const keys = sections.map((s) => /data-key="([^"]+)"/.exec(s.body)![1])
    expect(keys[0]).not.toBe(keys[1])
    expect(beta.asked).toEqual(["user-ada"])
    expect(alpha.asked).toEqual(["user-ada"])
  })

  it("leaves out an extension that answers no section", async () => {
    const quiet = sectioned("quiet", { answer: async () => undefined })
    const loud = sectioned("loud")
    const { browser } = setup([quiet.extension, loud.extension, center])
    await browser.signIn()
    expect((await sectionsOf(browser)).sections.map((s) => s.id)).toEqual(["loud"])
    expect(quiet.asked).toEqual(["user-ada"])
  })
})

describe("while signed out", () => {
  it("asks no extension and answers none", async () => {
    const alpha = sectioned("alpha")
    const { browser } = setup([alpha.extension, center])
    const { status, sections } = await sectionsOf(browser)
    expect(status).toBe(200)
    expect(sections).toEqual([])
    expect(alpha.asked).toEqual([])
  })

  it("asks none after the session is revoked by signing out", async () => {
    const alpha = sectioned("alpha")
    const { browser } = setup([alpha.extension, center])
    await browser.signIn()
    await browser.signOut()
    expect((await sectionsOf(browser)).sections).toEqual([])
    expect(alpha.asked).toEqual([])
  })
})

describe("a section that fails", () => {
  it("is answered unavailable, the others shown, its store's outage logged once without the store's words in the answer", async () => {
    let down = false
    const flaky = sectioned("flaky", { failing: () => down })
    const steady = sectioned("steady")
    const { browser, log } = setup([flaky.extension, steady.extension, center])
    await browser.signIn()
    down = true
    for (let i = 0; i < 2; i++) {
      const answer = await browser.request("/auth/center")
      expect(answer.status).toBe(200)
      const text = await answer.text()
      expect(text).not.toContain("hunter2")
      expect(text).not.toContain("10.0.0.9")
      expect(JSON.parse(text).sections.map((s: any) => ("unavailable" in s ? `${s.id}: unavailable` : s.id))).toEqual(["flaky: unavailable", "steady"])
    }
    // The outage goes through the store's tracker: its first failure logged, the next counted.
    expect(log.lines.filter((l) => l.startsWith("ServiceUnavailable")).length).toBe(1)
    down = false
    expect((await sectionsOf(browser)).sections.map((s) => s.id)).toEqual(["flaky", "steady"])
  })

  it("is answered unavailable when it never answers (not only through its store), the others shown", async () => {
    const hung = sectioned("hung", { answer: () => new Promise<never>(() => {}) })
    const steady = sectioned("steady")
    const { browser, log } = setup([hung.extension, steady.extension, center], { adapterTimeout: 100 })
    await browser.signIn()
    const { status, sections } = await sectionsOf(browser)
    expect(status).toBe(200)
    expect(sections).toEqual([{ id: "hung", unavailable: true }, expect.objectContaining({ id: "steady", heading: "steady heading" })])
    expect(log.lines.some((l) => l.includes("The hung extension's accountSection did not answer within 200 ms"))).toBe(true)
  })

  it("logs a bug in it with its stack, and shows the rest", async () => {
    const broken = sectioned("broken", { answer: async () => { throw new RangeError("the extension's own bug") } })
    const steady = sectioned("steady")
    const { browser, log } = setup([broken.extension, steady.extension, center])
    await browser.signIn()
    const { status, sections } = await sectionsOf(browser)
    expect(status).toBe(200)
    expect(sections).toEqual([{ id: "broken", unavailable: true }, expect.objectContaining({ id: "steady" })])
    expect(log.lines.some((l) => l.startsWith("RangeError: the extension's own bug"))).toBe(true)
  })

  it("refuses markup that is not html`…` (a string would reach the page unescaped) and a missing heading", async () => {
    const stringy = sectioned("stringy", { answer: async () => ({ heading: "Mine", body: "<img src=x onerror=alert(1)>" as never }) })
    const headless = sectioned("headless", { answer: async () => ({ heading: "", body: html`<p>hi</p>` }) })
    const { browser, log } = setup([stringy.extension, headless.extension, center])
    await browser.signIn()
    const answer = await browser.request("/auth/center")
    const text = await answer.text()
    expect(text).not.toContain("onerror")
    expect(JSON.parse(text).sections).toEqual([{ id: "stringy", unavailable: true }, { id: "headless", unavailable: true }])
    expect(log.lines.filter((l) => l.startsWith("TypeError: The") && l.includes("accountSection")).length).toBe(2)
  })
})

describe("the CSRF token in a section's form", () => {
  it("is the request's one token, even for a browser that had none, and it passes the extension's route", async () => {
    const alpha = sectioned("alpha")
    const beta = sectioned("beta")
    const { browser } = setup([alpha.extension, beta.extension, center])
    await browser.signIn()
    // A browser whose CSRF cookie is gone: every form on the page must get the one token minted now.
    for (const name of [...browser.jar.keys()]) if (name.includes("csrf-token")) browser.jar.delete(name)
    const { token, sections } = await sectionsOf(browser)
    const tokens = sections.map((s) => /name="csrfToken" value="([^"]+)"/.exec(s.body)![1])
    expect(tokens).toEqual([token, token])
    expect(browser.lastSetCookies.filter((c) => c.name.includes("csrf-token")).length).toBe(1)
    const acted = await browser.request("/auth/alpha/act", { form: { csrfToken: tokens[0]! } })
    expect(acted.status).toBe(200)
    expect(await acted.json()).toEqual({ acted: true })
    // Without it, the extension's route refuses: core's CSRF applies there.
    expect((await browser.request("/auth/alpha/act", { form: { csrfToken: "forged" } })).status).toBe(403)
  })
})
