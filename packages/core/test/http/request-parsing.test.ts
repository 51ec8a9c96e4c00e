import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { Browser, credentialsConfig, direct } from "../helpers.js"

/**
 * What `parseRequest` (`lib/http/request.ts`) makes of a request before any action runs:
 * which bodies it reads, the limits it holds at their edge, and the path segments it
 * accepts. The hostile cases that must be refused are in `../bad-input.test.ts`; these
 * pin the edges, so a limit moved by one or a check dropped shows.
 */
const config = credentialsConfig()
const send = direct(config)
const LIMIT = 1024 * 1024

/** A signed-in browser and its CSRF token. */
async function signedIn() {
  const browser = new Browser(send)
  await browser.signIn()
  expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  return { browser, csrfToken: await browser.csrfToken() }
}

const isMissingCsrf = (response: Response) => response.status === 302 && (response.headers.get("location") ?? "").includes("error=MissingCSRF")

describe("a POST without a body, or with an empty one, reaches its action with no fields", () => {
  it.each([
    ["no body at all", {}],
    ["an empty JSON body", { body: "", headers: { "content-type": "application/json" } }],
    ["an empty form body", { body: "", headers: { "content-type": "application/x-www-form-urlencoded" } }],
  ] as [string, RequestInit][])("%s: the sign-out runs and lacks its CSRF token (not a 400 or a 500)", async (_case, init) => {
    const response = await send(new Request("http://localhost:3000/auth/signout", { method: "POST", ...init }))
    expect(isMissingCsrf(response)).toBe(true)
  })
})

describe("a JSON body must be an object", () => {
  it.each(["1", "0", "true", "false", '"csrfToken"', '""'])("the JSON %s is a 400, not a body with no fields", async (body) => {
    const response = await send(new Request("http://localhost:3000/auth/signout", { method: "POST", body, headers: { "content-type": "application/json" } }))
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "InvalidRequest", message: "The JSON body must be an object" })
  })
})

describe("the body limit is 1 MiB, held at its edge", () => {
  /** A form body of exactly `size` bytes carrying the token (padding after it). */
  const formOf = (csrfToken: string, size: number) => {
    const head = `csrfToken=${csrfToken}&pad=`
    return head + "x".repeat(size - head.length)
  }

  it("a form of exactly 1 MiB is read: its token signs the user out", async () => {
    const { browser, csrfToken } = await signedIn()
    const body = formOf(csrfToken, LIMIT)
    const response = await browser.request("/auth/signout", { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(LIMIT) } })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(await browser.session()).toBeNull()
  })

  it("a Content-Length over 1 MiB is a 413 before the body is read, even when the body sent is small", async () => {
    const { browser, csrfToken } = await signedIn()
    const response = await browser.request("/auth/signout", {
      method: "POST",
      body: `csrfToken=${csrfToken}`,
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(LIMIT + 1) },
    })
    expect(response.status).toBe(413)
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it("a GET is never read as having a body: a large Content-Length on it changes nothing", async () => {
    const response = await send(new Request("http://localhost:3000/auth/csrf", { headers: { "content-length": String(LIMIT + 1) } }))
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ csrfToken: expect.any(String) })
  })
})

describe("a multipart body keeps its text fields only", () => {
  it("a file part named csrfToken is not a token", async () => {
    const { browser, csrfToken } = await signedIn()
    const form = new FormData()
    form.append("csrfToken", new Blob([csrfToken]), "token.txt")
    const response = await browser.request("/auth/signout", { method: "POST", body: form })
    expect(isMissingCsrf(response)).toBe(true)
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it("authorize() sees the text fields of a multipart sign-in, and no file part", async () => {
    const seen: Record<string, unknown>[] = []
    const Credentials = (await import("@portcullis/core/providers/credentials")).default
    const recording = direct({
      ...config,
      providers: [Credentials({ credentials: { username: {}, avatar: {} }, authorize: async (fields) => (seen.push({ ...fields }), null) })],
    })
    const browser = new Browser(recording)
    const form = new FormData()
    form.append("csrfToken", await browser.csrfToken())
    form.append("username", "ada")
    form.append("avatar", new Blob(["GIF89a"]), "ada.gif")
    await browser.request("/auth/callback/credentials", { method: "POST", body: form })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ username: "ada" })
    expect(seen[0]).not.toHaveProperty("avatar")
  })

  it("a multipart body that does not parse is a 400", async () => {
    const response = await send(
      new Request("http://localhost:3000/auth/signout", { method: "POST", body: "not multipart at all", headers: { "content-type": "multipart/form-data; boundary=xyz" } }),
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "InvalidRequest", message: "The form body does not parse" })
  })
})

describe("the path names an action and, where it takes one, a provider", () => {
  it("`undefined` as the provider segment is no provider, as Auth.js's client sends it for signIn() with no id", async () => {
    const browser = new Browser(send)
    const page = await browser.request("/auth/signin/undefined")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toMatch(/text\/html/)
    const csrfToken = await browser.csrfToken()
    const post = await browser.request("/auth/signin/undefined", { form: { csrfToken } })
    expect(post.headers.get("location")).toBe("http://localhost:3000/auth/signin")
  })

  it("a provider segment is percent-decoded", async () => {
    const browser = new Browser(send)
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/callback/%63redentials", { form: { csrfToken, username: "ada", password: "correct horse battery staple" } })
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it.each([
    ["/auth/providers/credentials", "takes no provider segment"],
    ["/auth/session/x", "takes no provider segment"],
    ["/auth/callback", "needs a provider"],
    ["/auth/password", "needs a provider"],
  ])("%s is a 400 UnknownAction that says the action %s", async (path, says) => {
    const response = await send(new Request(`http://localhost:3000${path}`))
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "UnknownAction", message: expect.stringContaining(says) })
  })

  it("a path outside the base path is no action, even one that starts with its letters", async () => {
    for (const path of ["/authx/session", "/au/session", "/session"]) {
      const response = await send(new Request(`http://localhost:3000${path}`))
      expect(response.status, path).toBe(400)
      expect(await response.json()).toMatchObject({ error: "UnknownAction", message: expect.stringContaining("The path is not under the base path /auth") })
    }
  })

  it("the base path itself and its trailing slash name no action", async () => {
    for (const path of ["/auth", "/auth/", "/auth//"]) {
      const response = await send(new Request(`http://localhost:3000${path}`))
      expect(response.status, path).toBe(400)
      expect(await response.json()).toMatchObject({ error: "UnknownAction", message: expect.stringContaining("Unknown action") })
    }
  })

  it("/health is no action while health.endpoint is off, and answers when it is on", async () => {
    const off = await send(new Request("http://localhost:3000/auth/health"))
    expect(off.status).toBe(400)
    expect(await off.json()).toMatchObject({ error: "UnknownAction", message: expect.stringContaining("health.endpoint") })
    const on = await Auth(new Request("http://localhost:3000/auth/health"), { ...config, health: { endpoint: true } } as AuthConfig)
    expect(on.status).toBe(200)
  })

  it("only GET and POST are methods: an action both answer still refuses PUT, naming both", async () => {
    const response = await send(new Request("http://localhost:3000/auth/signin", { method: "PATCH" }))
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("GET, POST")
    expect(await response.json()).toMatchObject({ message: "PATCH is not allowed on signin; use GET, POST" })
  })

  it("a GET to a provider's sign-in is refused with Allow: POST (a link must not start a sign-in)", async () => {
    const response = await send(new Request("http://localhost:3000/auth/signin/credentials"))
    expect(response.status).toBe(405)
    expect(await response.json()).toMatchObject({ message: "GET is not allowed on signin/<provider>; use POST" })
  })
})
