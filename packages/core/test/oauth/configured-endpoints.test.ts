import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { Browser, SECRET } from "../helpers.js"

/**
 * Endpoints may be configured as a string, a `URL` or `{ url, params }`. The configuration
 * check and the sign-in read them through one function, so a form the check accepts is the
 * one sign-in uses (a `URL` object used to pass the check and then be ignored at sign-in).
 */
describe("configured OAuth endpoints, in each form the configuration accepts", () => {
  const forms = {
    string: "https://op.example/authorize?fields=a,b",
    URL: new URL("https://op.example/authorize?fields=a,b"),
    "{ url }": { url: "https://op.example/authorize?fields=a,b" },
  }
  for (const [form, authorization] of Object.entries(forms)) {
    it(`${form}: sign-in sends the browser to it, its query kept`, async () => {
      const provider = {
        id: "op",
        name: "OP",
        type: "oauth",
        authorization,
        token: "https://op.example/token",
        userinfo: "https://op.example/userinfo",
        clientId: "client",
        clientSecret: "secret",
      } as OAuthConfig<any>
      const browser = new Browser((request) => Auth(request, { secret: SECRET, trustHost: true, providers: [provider] }))
      const response = await browser.request("/auth/signin/op", { form: { csrfToken: await browser.csrfToken() } })
      const target = new URL(response.headers.get("location")!)
      expect(target.origin + target.pathname).toBe("https://op.example/authorize")
      expect(target.searchParams.get("fields")).toBe("a,b")
      expect(target.searchParams.get("client_id")).toBe("client")
    })
  }

  afterEach(() => vi.unstubAllEnvs())

  it("a URL object that is not https is held to the same http policy: a configuration error in production", async () => {
    vi.stubEnv("NODE_ENV", "production")
    const provider = { id: "op", name: "OP", type: "oauth", authorization: new URL("http://op.example/authorize"), token: "https://op.example/token", userinfo: "https://op.example/userinfo", clientId: "c", clientSecret: "s" } as OAuthConfig<any>
    const silent = { error() {}, warn() {}, debug() {} }
    const response = await Auth(new Request("http://localhost:3000/auth/providers"), { secret: SECRET, trustHost: true, providers: [provider], logger: silent })
    expect(response.status).toBe(500)
  })
})
