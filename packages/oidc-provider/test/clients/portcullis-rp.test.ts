/**
 * Portcullis's own generic OpenID Connect provider kind as the relying party of a Portcullis
 * OpenID Provider, in Chromium: a second Portcullis configuration (another app, another
 * origin, its own cookies) whose provider is `{ id: "portcullis", type: "oidc", issuer,
 * clientId, clientSecret }` — discovery, PKCE, the code exchange and the ID token's checks
 * are core's OAuth client's, exactly as for any other provider.
 *
 * The issuer is http on loopback. Core's OAuth client is stricter than Auth.js's: it lets
 * http endpoints through only outside production or, in production, with the provider's
 * `allowInsecureLoopback` (`httpPolicy` in core's `lib/oauth/http.ts`). Tests run with
 * NODE_ENV=test, which is the supported local-development case; every other check (issuer,
 * signature, `aud`, PKCE, state) applies unchanged. The provider likewise accepts http only
 * for loopback issuers and redirect URIs.
 */
import type { AuthConfig } from "@portcullis/core"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { authListener } from "../../../core/test/http-server.js"
import { localhostServer, signInAtOp, startOp, type OpServer } from "./op-server.js"

const CLIENT_SECRET = "portcullis-rp-secret-with-plenty-of-entropy-0123456789"

describe.runIf(browserAvailable())("Portcullis's own OIDC provider kind signs in against the provider in Chromium", () => {
  let op: OpServer
  let rp: Awaited<ReturnType<typeof localhostServer>>
  let browser: Browser
  let handler: ReturnType<typeof authListener>
  const rpErrors: string[] = []

  beforeAll(async () => {
    rp = await localhostServer((req, res) => {
      if (req.url?.startsWith("/auth/")) return handler(req, res)
      res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>Second app</title><p id="home">home</p>`)
    })
    op = await startOp([{ clientId: "second-app", clientSecret: CLIENT_SECRET, redirectUris: [`${rp.origin}/auth/callback/portcullis`], name: "The Second App" }])
    const config: AuthConfig = {
      secret: "the-second-app-secret-that-is-long-enough-0123456789",
      trustHost: true,
      basePath: "/auth",
      rateLimit: false,
      logger: { error: (...parts: unknown[]) => void rpErrors.push(parts.map(String).join(" ")), warn: () => {}, debug: () => {} },
      providers: [{ id: "portcullis", name: "Portcullis", type: "oidc", issuer: op.issuer, clientId: "second-app", clientSecret: CLIENT_SECRET }],
    }
    handler = authListener(config)
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await rp?.close()
    await op?.close()
  })

  it("clicks sign in, signs in and consents at the provider, and is signed in at the second app with the right email", async () => {
    const grace = await op.person("grace@example.com", undefined, "Grace Hopper")
    const page = await browser.newPage()
    await page.goto(`${rp.origin}/auth/signin`)
    await page.getByRole("button", { name: /portcullis/i }).click()

    await page.waitForURL((url) => url.href.startsWith(`${op.origin}/auth/signin`))
    await signInAtOp(page, grace.email)

    await page.getByRole("button", { name: "Allow" }).waitFor()
    expect(await page.textContent("body")).toContain("The Second App")
    await page.getByRole("button", { name: "Allow" }).click()

    await page.waitForURL((url) => url.origin === rp.origin && !url.pathname.startsWith("/auth/"))
    const session = await (await page.request.get(`${rp.origin}/auth/session`)).json()
    expect(session.user.email).toBe("grace@example.com")
    expect(session.user.name).toBe("Grace Hopper")
    expect(op.errors).toEqual([])
    expect(rpErrors).toEqual([])
    await page.close()
  })
})
