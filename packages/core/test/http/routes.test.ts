import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { credentialsConfig, direct } from "../helpers.js"

/**
 * The route table of `lib/http/request.ts`, read from outside: which methods each action
 * answers (a refused method is a 405 whose `Allow` names the ones it does), and which
 * actions take a provider segment (`/signin/<provider>`) — none, optional or required.
 * Every action is listed, so an action that starts answering POST, or stops answering
 * GET, or starts accepting a segment it ignores, fails here by name.
 */
const send = direct(credentialsConfig({ health: { endpoint: true } } as Partial<AuthConfig>))
const request = (path: string, method = "GET") => send(new Request(`http://localhost:3000/auth/${path}`, { method }))

/** Each action, the methods it answers (as `Allow` lists them), and its provider segment. */
const routes = [
  ["providers", "GET", "none"],
  ["session", "GET, POST", "none"],
  ["csrf", "GET", "none"],
  ["signin", "GET, POST", "optional"],
  ["signout", "GET, POST", "none"],
  ["callback", "GET, POST", "required"],
  ["verify-request", "GET", "none"],
  ["error", "GET", "none"],
  ["webauthn-options", "GET", "optional"],
  ["two-factor", "GET, POST", "none"],
  ["reauthenticate", "GET, POST", "none"],
  ["password", "GET, POST", "required"],
  ["health", "GET", "none"],
] as const

describe("each action answers its own methods; any other is a 405 that names them", () => {
  it.each(routes)("%s: DELETE is refused with Allow: %s", async (action, allow) => {
    const response = await request(action, "DELETE")
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe(allow)
    expect(await response.json()).toMatchObject({ error: "MethodNotAllowed", message: `DELETE is not allowed on ${action}; use ${allow}` })
  })

  it.each(routes.filter(([, allow]) => allow === "GET"))("%s answers GET only: a POST is refused with Allow: GET", async (action) => {
    const response = await request(action, "POST")
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("GET")
    expect(await response.json()).toMatchObject({ message: `POST is not allowed on ${action}; use GET` })
  })
})

describe("a provider segment only where the action takes one", () => {
  it.each(routes.filter(([, , provider]) => provider === "none"))("/%s/<provider> is a 400: the action takes no provider segment", async (action) => {
    const response = await request(`${action}/credentials`)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "UnknownAction", message: expect.stringMatching(new RegExp(`^The ${action} action takes no provider segment`)) })
  })

  it.each(routes.filter(([, , provider]) => provider === "required"))("/%s with no provider is a 400: the action needs one", async (action) => {
    const response = await request(action)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "UnknownAction", message: expect.stringMatching(new RegExp(`^The ${action} action needs a provider: ${action}/<provider>`)) })
  })

  it("signin takes one or none: both reach the sign-in (which asks for its CSRF token on a POST)", async () => {
    for (const path of ["signin", "signin/credentials"]) {
      const response = await request(path, "POST")
      expect(response.status, path).toBe(302)
      expect(response.headers.get("location"), path).toBe("http://localhost:3000/auth/signin?error=MissingCSRF")
    }
  })

  it("webauthn-options takes one or none: with one, the action itself answers (this site has no passkey provider)", async () => {
    const response = await request("webauthn-options/credentials")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=Configuration")
  })
})

describe("the path: empty segments are skipped, the base path itself is no action", () => {
  it("/auth//session is the session, and /auth/callback//credentials the credentials callback", async () => {
    const session = await request("/session")
    expect(session.status).toBe(200)
    expect(await session.json()).toBeNull()
    const callback = await request("callback//credentials", "POST")
    expect(callback.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=MissingCSRF")
  })
})
