/**
 * Issue 12's attacks, as the attacker's steps, through a real Express server: raw sockets,
 * because the attacker's client sends whatever `Host` it likes (`fetch` will not). Core's
 * own tests run the same attacks through `Auth()` (`packages/core/test/security/`); the
 * passkey pre-hijack runs through the Express demo in Chromium (`e2e/passkey-prehijack.test.ts`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET } from "../../core/test/helpers.js"
import { emailConfig, startSmtp, type TestSmtp } from "../../core/test/email/support.js"
import { FakeOP } from "../../core/test/oauth/fixtures/fake-op.js"
import { exchange } from "../../core/test/raw-http.js"
import { expressServer } from "./support.js"

/** One request with exactly these headers (a forged `Host` included) and body. */
const send = (port: number, method: string, target: string, headers: Record<string, string>, body?: string) => exchange(port, method, target, headers, body)

/** The attacker's CSRF round trip under a forged Host: token and cookie header. */
async function csrfUnder(port: number, headers: Record<string, string>): Promise<{ csrfToken: string; cookie: string }> {
  const answer = await send(port, "GET", "/auth/csrf", headers)
  return { csrfToken: (JSON.parse(answer.body) as { csrfToken: string }).csrfToken, cookie: answer.setCookie.map((c) => c.split(";")[0]).join("; ") }
}

const form = "application/x-www-form-urlencoded"

describe("Express: magic links poisoned through the Host header", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("with trustHost alone, a raw forged Host mails nothing and lands on the Configuration error", async () => {
    const server = await expressServer(emailConfig(MemoryAdapter(), smtp.url))
    try {
      const port = Number(new URL(server.origin).port)
      const forged = { Host: "evil.example" }
      const { csrfToken, cookie } = await csrfUnder(port, forged)
      const before = smtp.messages.length
      const answer = await send(port, "POST", "/auth/signin/email", { ...forged, Cookie: cookie, "Content-Type": form }, new URLSearchParams({ email: "victim@example.com", csrfToken }).toString())
      expect(answer.status).toBe(302)
      expect(answer.headers.location).toBe("http://evil.example/auth/error?error=Configuration")
      expect(smtp.messages.length).toBe(before)
    } finally {
      await server.close()
    }
  })

  it("behind a trusted proxy, a forged X-Forwarded-Host mails nothing either", async () => {
    const server = await expressServer(emailConfig(MemoryAdapter(), smtp.url), (app) => app.set("trust proxy", true))
    try {
      const port = Number(new URL(server.origin).port)
      const forged = { Host: "app.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" }
      const { csrfToken, cookie } = await csrfUnder(port, forged)
      const before = smtp.messages.length
      const answer = await send(port, "POST", "/auth/signin/email", { ...forged, Cookie: cookie, "Content-Type": form }, new URLSearchParams({ email: "victim@example.com", csrfToken }).toString())
      expect(new URL(answer.headers.location as string).searchParams.get("error")).toBe("Configuration")
      expect(smtp.messages.length).toBe(before)
    } finally {
      await server.close()
    }
  })

  it("with AUTH_URL's origin listed in trustedOrigins, the mailed link is on that origin whatever Host says", async () => {
    const server = await expressServer(emailConfig(MemoryAdapter(), smtp.url, { trustHost: false, trustedOrigins: ["http://app.example"] }))
    try {
      const port = Number(new URL(server.origin).port)
      // Unlisted: refused before anything runs.
      expect((await send(port, "GET", "/auth/csrf", { Host: "evil.example" })).status).toBe(400)
      const listed = { Host: "app.example" }
      const { csrfToken, cookie } = await csrfUnder(port, listed)
      await send(port, "POST", "/auth/signin/email", { ...listed, Cookie: cookie, "Content-Type": form }, new URLSearchParams({ email: "listed@example.com", csrfToken }).toString())
      expect(new URL(smtp.linkFor("listed@example.com")).origin).toBe("http://app.example")
    } finally {
      await server.close()
    }
  })
})

describe("Express: the redirect proxy and a forged Host", () => {
  let op: FakeOP
  beforeAll(async () => {
    op = await FakeOP.start()
  })
  afterAll(() => op.close())
  beforeEach(() => op.reset())

  const preview = (): AuthConfig => ({
    secret: SECRET,
    trustHost: true,
    trustedOrigins: ["https://preview-*.app.example"],
    redirectProxyUrl: "https://auth.app.example/auth",
    providers: [{ id: "fake", name: "Fake", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>],
  })

  it("the preview seals no forged origin: the sign-in ends before any request leaves for the provider", async () => {
    const server = await expressServer(preview(), (app) => app.set("trust proxy", true))
    try {
      const port = Number(new URL(server.origin).port)
      for (const forged of [{ Host: "evil.example" }, { Host: "preview-1.app.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" }]) {
        const { csrfToken, cookie } = await csrfUnder(port, forged)
        const answer = await send(port, "POST", "/auth/signin/fake", { ...forged, Cookie: cookie, "Content-Type": form }, new URLSearchParams({ csrfToken }).toString())
        expect(answer.status).toBe(302)
        expect(new URL(answer.headers.location as string).pathname).toBe("/auth/error")
        expect(answer.headers.location).not.toContain(op.issuer)
        expect(answer.setCookie.some((c) => c.startsWith("authjs.state=") || c.startsWith("__Secure-authjs.state="))).toBe(false)
      }
    } finally {
      await server.close()
    }
  })

  it("a listed preview origin still signs in through the proxy", async () => {
    const server = await expressServer(preview(), (app) => app.set("trust proxy", true))
    try {
      const port = Number(new URL(server.origin).port)
      const listed = { Host: "127.0.0.1", "X-Forwarded-Host": "preview-7.app.example", "X-Forwarded-Proto": "https" }
      const { csrfToken, cookie } = await csrfUnder(port, listed)
      const answer = await send(port, "POST", "/auth/signin/fake", { ...listed, Cookie: cookie, "Content-Type": form }, new URLSearchParams({ csrfToken }).toString())
      const authorize = new URL(answer.headers.location as string)
      expect(authorize.origin + authorize.pathname).toBe(`${op.issuer}/authorize`)
      expect(authorize.searchParams.get("redirect_uri")).toBe("https://auth.app.example/auth/callback/fake")
    } finally {
      await server.close()
    }
  })
})

describe("Express: smaller hardening", () => {
  it("a JSON body smuggled behind text/plain is not parsed (the sign-out lacks its CSRF token)", async () => {
    const server = await expressServer({ secret: SECRET, trustHost: true, providers: [] })
    try {
      const port = Number(new URL(server.origin).port)
      const { csrfToken, cookie } = await csrfUnder(port, { Host: "localhost" })
      const answer = await send(port, "POST", "/auth/signout", { Host: "localhost", Cookie: cookie, "Content-Type": "text/plain;x=application/json" }, JSON.stringify({ csrfToken }))
      expect(new URL(answer.headers.location as string).searchParams.get("error")).toBe("MissingCSRF")
    } finally {
      await server.close()
    }
  })

  it("a chunked session cookie with a gap reads as no session and every piece is deleted", async () => {
    const server = await expressServer({ secret: SECRET, trustHost: true, providers: [] })
    try {
      const port = Number(new URL(server.origin).port)
      const answer = await send(port, "GET", "/auth/session", { Host: "localhost", Cookie: "authjs.session-token.0=aaa; authjs.session-token.2=ccc" })
      expect(answer.status).toBe(200)
      expect(answer.body).toContain("null")
      const deleted = answer.setCookie.filter((c) => /Max-Age=0/i.test(c)).map((c) => c.split("=")[0])
      expect(deleted).toEqual(expect.arrayContaining(["authjs.session-token.0", "authjs.session-token.2"]))
    } finally {
      await server.close()
    }
  })
})
