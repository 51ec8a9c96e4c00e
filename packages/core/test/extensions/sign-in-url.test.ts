/**
 * `req.signInUrl(callbackUrl, { email })`: where an extension sends a signed-out browser — the
 * app's `pages.signIn` when configured, else core's page — the same place core's own refusal
 * of a page (`access: "user"`) sends it.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { defineExtension } from "@portcullis/core/extension"
import { credentialsConfig } from "../helpers.js"

const ORIGIN = "http://localhost:3000"

const ext = defineExtension({
  id: "gate",
  routes: [
    { method: "GET", path: "where", access: "anyone", handler: (req) => ({ json: { url: req.signInUrl(`${req.authUrl}/gate/back`, req.query.email ? { email: req.query.email } : undefined) } }) },
    { method: "GET", path: "members", answers: "page", handler: (req) => req.page("Members", [] as never) },
  ],
})

async function ask(config: AuthConfig, path: string) {
  return Auth(new Request(`${ORIGIN}${path}`, { headers: { accept: "text/html" } }), config)
}

describe("req.signInUrl", () => {
  it("is core's sign-in page by default, with the callbackUrl and the address to prefill", async () => {
    const config = credentialsConfig({ extensions: [ext] })
    const url = new URL((await (await ask(config, "/auth/gate/where?email=ada%40example.com")).json()).url)
    expect(url.href.startsWith(`${ORIGIN}/auth/signin?`)).toBe(true)
    expect(url.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/auth/gate/back`)
    expect(url.searchParams.get("email")).toBe("ada@example.com")
    expect(new URL((await (await ask(config, "/auth/gate/where")).json()).url).searchParams.has("email")).toBe(false)
  })

  it("is the app's pages.signIn when configured — where core's refusal of a signed-out page goes too", async () => {
    const config = credentialsConfig({ extensions: [ext], pages: { signIn: "/login" } })
    const url = new URL((await (await ask(config, "/auth/gate/where")).json()).url)
    expect(`${url.origin}${url.pathname}`).toBe(`${ORIGIN}/login`)
    expect(url.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/auth/gate/back`)
    const refused = await ask(config, "/auth/gate/members")
    expect(refused.status).toBe(302)
    const to = new URL(refused.headers.get("location")!)
    expect(`${to.origin}${to.pathname}`).toBe(`${ORIGIN}/login`)
    expect(to.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/auth/gate/members`)
  })
})
