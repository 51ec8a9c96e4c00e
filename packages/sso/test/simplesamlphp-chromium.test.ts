/**
 * The harness in a real browser: Chromium signs in at SimpleSAMLphp's own login page and its
 * auto-POST form carries a signed, encrypted assertion to a minimal node-saml SP on loopback.
 * (Portcullis's own SAML e2e builds on this; here the SP is node-saml alone.)
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "playwright-core"
import { SAML, ValidateInResponseTo } from "@node-saml/node-saml"
import { browserAvailable, launchChromium } from "../../../e2e/support.js"
import { selfSignedPair } from "./fixtures/keys.js"
import { simpleSamlPhpAvailable, startSimpleSamlPhp, type SimpleSamlPhpIdp } from "./fixtures/simplesamlphp.js"

const gate = simpleSamlPhpAvailable()
const hasBrowser = gate.available && browserAvailable()

function readForm(request: IncomingMessage): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()))))
    request.on("error", reject)
  })
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

gate.describe("SimpleSAMLphp in Chromium", () => {
  describe.runIf(hasBrowser)("SP-initiated sign-in", () => {
    let server: Server
    let idp: SimpleSamlPhpIdp
    let saml: SAML
    let browser: Browser
    let origin = ""

    beforeAll(async () => {
      const sp = await selfSignedPair("sp-chromium")
      server = createServer(async (request, response) => {
        try {
          if (request.method === "GET" && request.url === "/login") {
            response.writeHead(302, { location: await saml.getAuthorizeUrlAsync("/after", undefined, {}) }).end()
          } else if (request.method === "POST" && request.url === "/acs") {
            const { profile } = await saml.validatePostResponseAsync(await readForm(request))
            const groups = ([] as unknown[]).concat(profile?.groups ?? [])
            response.writeHead(200, { "content-type": "text/html" })
            response.end(`<p id="who">${escapeHtml(String(profile?.nameID))}</p><p id="groups">${escapeHtml(groups.join(","))}</p>`)
          } else {
            response.writeHead(404).end()
          }
        } catch (error) {
          response.writeHead(400, { "content-type": "text/plain" }).end(`refused: ${(error as Error).message}`)
        }
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const address = server.address()
      origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`
      const entityId = `${origin}/metadata`
      idp = await startSimpleSamlPhp({
        sp: { entityId, acsUrl: `${origin}/acs`, certificate: sp.certificate },
        encryptAssertions: true,
      })
      saml = new SAML({
        entryPoint: idp.ssoUrl,
        issuer: entityId,
        callbackUrl: `${origin}/acs`,
        audience: entityId,
        idpCert: idp.certificates,
        decryptionPvk: sp.privateKey,
        wantAssertionsSigned: true,
        wantAuthnResponseSigned: true,
        validateInResponseTo: ValidateInResponseTo.always,
      })
      browser = await launchChromium()
    })
    afterAll(async () => {
      await browser?.close()
      await idp?.stop()
      await new Promise((resolve) => server?.close(resolve))
    })

    it("signs in at the IdP's page and lands at the SP with the user's NameID and groups", async () => {
      const page = await browser.newPage()
      await page.goto(`${origin}/login`)
      expect(page.url().startsWith(idp.origin)).toBe(true)
      await page.locator('input[name="username"]').fill("alice")
      await page.locator('input[name="password"]').fill("alice-password")
      await Promise.all([page.waitForURL(`${origin}/acs`), page.locator('input[name="password"]').press("Enter")])
      await expect.poll(() => page.locator("#who").textContent()).toBe("alice@example.test")
      expect(await page.locator("#groups").textContent()).toBe("staff,admins")
      await page.close()
    })
  })
})
