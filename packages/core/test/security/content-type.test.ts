import { describe, expect, it } from "vitest"
import { ada, Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"

/**
 * Content-Type confusion (issue #12, item 1). `text/plain` is a "simple" type: a page on
 * any site may send it without a CORS preflight. A body parser that looks for
 * `application/json` anywhere in the header would read such a body as JSON. Only the MIME
 * essence (type/subtype before `;`) decides, compared exactly.
 */
const send = direct(credentialsConfig({ logger: captureLogger().logger }))

async function signedIn() {
  const browser = new Browser(send)
  await browser.signIn(ada)
  expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  return browser
}

/** A sign-out POST with the CSRF token in a body of the given type. */
async function signOutWith(browser: Browser, contentType: string, body: (csrfToken: string) => string | FormData) {
  const csrfToken = await browser.csrfToken()
  return browser.request("/auth/signout", { method: "POST", headers: { "content-type": contentType }, body: body(csrfToken) })
}

describe("a body is parsed only when its MIME essence names the format exactly", () => {
  it.each([
    ["JSON smuggled in a text/plain parameter", "text/plain;x=application/json", (t: string) => JSON.stringify({ csrfToken: t })],
    ["JSON smuggled in a charset value", "text/plain; charset=application/json", (t: string) => JSON.stringify({ csrfToken: t })],
    ["a form smuggled in a text/plain parameter", "text/plain;x=application/x-www-form-urlencoded", (t: string) => `csrfToken=${t}`],
    ["a JSON suffix type", "application/jsonp", (t: string) => JSON.stringify({ csrfToken: t })],
    ["a vendor type containing the word", "application/vnd.application/json", (t: string) => JSON.stringify({ csrfToken: t })],
  ])("%s: the body is ignored, so the sign-out lacks its CSRF token and the session stays", async (_name, type, body) => {
    const browser = await signedIn()
    const response = await signOutWith(browser, type, body)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toContain("error=MissingCSRF")
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it("multipart smuggled in a text/plain parameter is ignored too", async () => {
    const browser = await signedIn()
    const csrfToken = await browser.csrfToken()
    const boundary = "----portcullis"
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="csrfToken"\r\n\r\n${csrfToken}\r\n--${boundary}--\r\n`
    const response = await browser.request("/auth/signout", { method: "POST", headers: { "content-type": `text/plain; boundary=${boundary}; x=multipart/form-data` }, body })
    expect(response.headers.get("location")).toContain("error=MissingCSRF")
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it.each([
    ["JSON in another case, with a charset", "Application/JSON ; charset=utf-8", (t: string) => JSON.stringify({ csrfToken: t })],
    ["a form with surrounding spaces", "  application/x-www-form-urlencoded  ; charset=UTF-8", (t: string) => `csrfToken=${t}`],
  ])("the real types still parse: %s", async (_name, type, body) => {
    const browser = await signedIn()
    const response = await signOutWith(browser, type, body)
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(await browser.session()).toBeNull()
  })

  it("the real multipart type still parses, its case-sensitive boundary intact", async () => {
    const browser = await signedIn()
    const boundary = "----PortcullisBoundary"
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="csrfToken"\r\n\r\n${await browser.csrfToken()}\r\n--${boundary}--\r\n`
    const response = await browser.request("/auth/signout", { method: "POST", headers: { "content-type": `Multipart/Form-Data; boundary=${boundary}` }, body })
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(await browser.session()).toBeNull()
  })
})
