/**
 * Azure DevOps: an authorization request with `response_type=Assertion` and a code exchanged
 * as a JWT bearer assertion. Azure DevOps Services cannot be reached from the test
 * environment, so a loopback server stands in for it, answering as its OAuth documentation
 * describes (authorize → code; `POST /oauth2/token` with the assertion form → `jwt-bearer`
 * tokens; the profile with the avatar under `coreAttributes`). Also: the response-type
 * allowance is only for providers with a token exchange of their own, never implicit.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import AzureDevOps from "@portcullis/core/providers/azure-devops"
import GitHub from "@portcullis/core/providers/github"
import { Browser, direct, SECRET } from "../helpers.js"
import { location, startSignIn } from "../oauth/flow.js"

const profile = { id: "6e3a1b4c-8c1f-4d6e-9b7a-2f5d0c9e1a33", displayName: "Ada Lovelace", emailAddress: "ada@example.com", coreAttributes: { Avatar: { value: { value: "iVBORw0KGgo=" } } } }

interface Seen {
  token: URLSearchParams[]
  profile: { authorization: string | undefined }[]
}

async function startAzureDevOps(clientSecret: string) {
  const seen: Seen = { token: [], profile: [] }
  const codes = new Map<string, string>()
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://localhost")
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = new URLSearchParams(Buffer.concat(chunks).toString("utf8"))
    if (url.pathname === "/oauth2/authorize") {
      if (url.searchParams.get("response_type") !== "Assertion") return void res.writeHead(400).end("response_type must be Assertion")
      const code = `code-${codes.size}`
      codes.set(code, url.searchParams.get("redirect_uri")!)
      const back = new URL(url.searchParams.get("redirect_uri")!)
      back.searchParams.set("code", code)
      back.searchParams.set("state", url.searchParams.get("state") ?? "")
      return void res.writeHead(302, { location: back.href }).end()
    }
    if (url.pathname === "/oauth2/token" && req.method === "POST") {
      seen.token.push(body)
      const ok =
        body.get("client_assertion_type") === "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" &&
        body.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
        body.get("client_assertion") === clientSecret &&
        codes.get(body.get("assertion") ?? "") === body.get("redirect_uri")
      if (!ok) return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant" }))
      codes.delete(body.get("assertion")!)
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: "ado-access", token_type: "jwt-bearer", expires_in: "3599", refresh_token: "ado-refresh" }))
    }
    if (url.pathname === "/_apis/profile/profiles/me") {
      seen.profile.push({ authorization: req.headers.authorization })
      if (req.headers.authorization !== "Bearer ado-access") return void res.writeHead(401).end()
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(profile))
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe("azure-devops", () => {
  let ado: Awaited<ReturnType<typeof startAzureDevOps>>
  beforeAll(async () => {
    ado = await startAzureDevOps("client-secret")
  })
  afterAll(() => ado.close())

  const provider = () =>
    AzureDevOps({
      clientId: "app-id",
      clientSecret: "client-secret",
      authorization: { url: `${ado.base}/oauth2/authorize` },
      token: { url: `${ado.base}/oauth2/token` },
      userinfo: `${ado.base}/_apis/profile/profiles/me?details=true&coreAttributes=Avatar&api-version=6.0`,
      allowInsecureLoopback: true,
    })
  const config = (p: ReturnType<typeof provider>): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [p] })

  it("has Auth.js's id, scope vso.profile and the Assertion response type", () => {
    const p = AzureDevOps()
    expect(p).toMatchObject({ id: "azure-devops", type: "oauth", authorization: { params: { response_type: "Assertion", scope: "vso.profile" } } })
    expect(AzureDevOps({ scope: "vso.profile vso.project" }).authorization).toMatchObject({ params: { scope: "vso.profile vso.project" } })
  })

  it("signs in: Assertion authorization, the code exchanged as a JWT bearer assertion, the avatar as a data URL", async () => {
    const browser = new Browser(direct(config(provider())))
    const authorize = location(await startSignIn(browser, "azure-devops"))
    expect(authorize.searchParams.get("response_type")).toBe("Assertion")
    expect(authorize.searchParams.get("scope")).toBe("vso.profile")
    const back = await fetch(authorize, { redirect: "manual" })
    const callback = new URL(back.headers.get("location")!)
    const done = await browser.request(callback.pathname + callback.search)
    expect(done.status).toBe(302)
    const session = await browser.session()
    expect(session.user).toEqual({ name: "Ada Lovelace", email: "ada@example.com", image: "data:image/jpeg;base64,iVBORw0KGgo=" })
    const exchange = ado.seen.token.at(-1)!
    expect(exchange.get("redirect_uri")).toBe("http://localhost:3000/auth/callback/azure-devops")
    expect(ado.seen.profile.at(-1)!.authorization).toBe("Bearer ado-access")
  })

  it("a refused exchange ends in OAuthCallbackError with no session", async () => {
    const wrong = AzureDevOps({ ...provider().options, clientSecret: "not-the-secret" } as never)
    const browser = new Browser(direct(config(wrong)))
    const authorize = location(await startSignIn(browser, "azure-devops"))
    const back = await fetch(authorize, { redirect: "manual" })
    const callback = new URL(back.headers.get("location")!)
    const done = await browser.request(callback.pathname + callback.search)
    expect(new URL(done.headers.get("location")!).searchParams.get("error")).toBe("OAuthCallbackError")
    expect(await browser.session()).toBeNull()
  })
})

describe("who may choose response_type", () => {
  async function responseTypeOf(p: OAuthConfig<any>): Promise<string | null> {
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, providers: [{ clientId: "c", clientSecret: "s", ...p } as never] }))
    return location(await startSignIn(browser, p.id)).searchParams.get("response_type")
  }

  it("a provider without a token exchange of its own keeps response_type=code", async () => {
    expect(await responseTypeOf({ ...GitHub(), authorization: { url: "https://github.com/login/oauth/authorize", params: { response_type: "token" } } } as OAuthConfig<any>)).toBe("code")
    expect(await responseTypeOf({ ...GitHub(), authorization: { url: "https://github.com/login/oauth/authorize", params: { response_type: "Assertion" } } } as OAuthConfig<any>)).toBe("code")
  })

  it("even with one, an implicit response type (a token in the URL) is never sent", async () => {
    const base = AzureDevOps()
    for (const implicit of ["token", "id_token", "code id_token token"]) {
      expect(await responseTypeOf({ ...base, authorization: { url: "https://app.vssps.visualstudio.com/oauth2/authorize", params: { response_type: implicit } } } as OAuthConfig<any>)).toBe("code")
    }
  })

  it("and the sign-in request's query cannot set it", async () => {
    const browser = new Browser(direct({ secret: SECRET, trustHost: true, providers: [{ clientId: "c", clientSecret: "s", ...GitHub() } as never] }))
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signin/github?response_type=token", { form: { csrfToken } })
    expect(location(response).searchParams.get("response_type")).toBe("code")
  })
})
