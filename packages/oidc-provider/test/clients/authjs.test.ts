/**
 * Auth.js itself (`@auth/core`, unmodified, from the registry) as the relying party of a
 * Portcullis OpenID Provider, in Chromium: its provider configuration is the five lines a
 * developer writes for any OpenID Provider (`{ id, type: "oidc", issuer, clientId,
 * clientSecret }`), so discovery, PKCE, the code exchange, client_secret_basic and the ID
 * token's validation are all Auth.js's (oauth4webapi's) own.
 *
 * The issuer is plain http on loopback. That is honest here, not a bypass we add: Auth.js
 * passes oauth4webapi's `allowInsecureRequests` on every request it makes to a provider
 * (discovery, token, userinfo — see `@auth/core/lib/actions/{signin/authorization-url,
 * callback/oauth/callback}.js`), so an http issuer is its supported way for local
 * development; every check other than the scheme (issuer equality, signatures, `aud`, `azp`,
 * `iat`, PKCE, state) is still applied. The provider only accepts http for loopback issuers
 * and redirect URIs, which is what runs here.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Auth as authjsAuth, type AuthConfig as AuthjsConfig } from "@auth/core"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { sendResponse, toWebRequest } from "../../../core/test/http-server.js"
import { localhostServer, signInAtOp, startOp, type OpServer } from "./op-server.js"

const CLIENT_SECRET = "authjs-rp-secret-with-plenty-of-entropy-0123456789"

describe.runIf(browserAvailable())("Auth.js (@auth/core) signs in against the provider in Chromium", () => {
  let op: OpServer
  let rp: Awaited<ReturnType<typeof localhostServer>>
  let browser: Browser
  let rpConfig: AuthjsConfig

  beforeAll(async () => {
    // The app's callback must be registered before the provider starts; the app's handler
    // needs the provider's issuer: the app listens first and reads its configuration per request.
    rp = await localhostServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith("/auth/")) {
        authjsAuth(toWebRequest(req), rpConfig)
          .then((response) => sendResponse(res, response))
          .catch((error: unknown) => res.writeHead(500).end(String(error)))
        return
      }
      res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>Auth.js app</title><p id="home">home</p>`)
    })
    op = await startOp([{ clientId: "authjs-app", clientSecret: CLIENT_SECRET, redirectUris: [`${rp.origin}/auth/callback/portcullis`], name: "The Auth.js App" }])
    rpConfig = {
      secret: "an-authjs-secret-that-is-long-enough-0123456789abcdef",
      trustHost: true,
      basePath: "/auth",
      providers: [{ id: "portcullis", name: "Portcullis", type: "oidc", issuer: op.issuer, clientId: "authjs-app", clientSecret: CLIENT_SECRET }],
    }
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await rp?.close()
    await op?.close()
  })

  it("clicks sign in, signs in and consents at Portcullis, and is signed in at the app with the right email", async () => {
    const ada = await op.person("ada@example.com", undefined, "Ada Lovelace")
    const page = await browser.newPage()
    await page.goto(`${rp.origin}/auth/signin`)
    await page.getByRole("button", { name: /portcullis/i }).click()

    // Auth.js sent the browser to the provider, which asks who it is on its own sign-in page.
    await page.waitForURL((url) => url.href.startsWith(`${op.origin}/auth/signin`))
    await signInAtOp(page, ada.email)

    await page.getByRole("button", { name: "Allow" }).waitFor()
    expect(await page.textContent("body")).toContain("The Auth.js App")
    await page.getByRole("button", { name: "Allow" }).click()

    await page.waitForURL((url) => url.origin === rp.origin && !url.pathname.startsWith("/auth/"))
    const session = await (await page.request.get(`${rp.origin}/auth/session`)).json()
    expect(session.user.email).toBe("ada@example.com")
    expect(session.user.name).toBe("Ada Lovelace")
    expect(op.audit.map((e) => e.type)).toEqual(expect.arrayContaining(["oidc.consentGiven", "oidc.tokenIssued"]))
    expect(op.errors).toEqual([])
    await page.close()
  })

  it("signed out at the app and back: the provider's session and remembered consent take it straight through", async () => {
    const alan = await op.person("alan@example.com", undefined, "Alan Turing")
    const page = await browser.newPage()
    const signIn = async () => {
      await page.goto(`${rp.origin}/auth/signin`)
      await page.getByRole("button", { name: /portcullis/i }).click()
    }
    await signIn()
    await page.waitForURL((url) => url.href.startsWith(`${op.origin}/auth/signin`))
    await signInAtOp(page, alan.email)
    await page.getByRole("button", { name: "Allow" }).click()
    await page.waitForURL((url) => url.origin === rp.origin && !url.pathname.startsWith("/auth/"))
    const consents = () => op.audit.filter((e) => e.type === "oidc.consentGiven" && e.userId === alan.id).length
    expect(consents()).toBe(1)

    await page.goto(`${rp.origin}/auth/signout`)
    await page.getByRole("button", { name: /sign out/i }).click()
    await page.waitForURL((url) => !url.pathname.startsWith("/auth/signout"))
    expect(await (await page.request.get(`${rp.origin}/auth/session`)).json()).toBeNull()

    // Every page the browser is sent to on the way back is recorded: none is the provider's.
    const visited: string[] = []
    page.on("framenavigated", (frame) => void (frame === page.mainFrame() && visited.push(frame.url())))
    await signIn()
    await page.waitForURL((url) => url.origin === rp.origin && !url.pathname.startsWith("/auth/"))
    expect(visited.filter((url) => url.startsWith(op.origin))).toEqual([])
    expect(consents()).toBe(1)
    const session = await (await page.request.get(`${rp.origin}/auth/session`)).json()
    expect(session.user.email).toBe("alan@example.com")
    await page.close()
  })
})
