/**
 * Issue 28, security notifications: a sign-in from a device the account has not signed in
 * on before (opt-in, `notifications.newDevice`). The device is a browser with the sealed
 * `knownDevice` cookie naming the account; without it — absent, forged, sealed under
 * another secret, expired, another account's — the sign-in is from a new device and the
 * owner is told which browser and system, and from which address. Through `Auth()` and
 * behind a real HTTP server.
 */
import { afterEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { createAuth } from "@portcullis/core"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { captureMailer, expectCleanNotice, FIREFOX_WINDOWS, recordEvents } from "./support.js"

const ADA = "ada@example.com"
const COOKIE = "portcullis.known-device"
const CHROME_ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"

const servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function setup(transport: "Auth()" | "HTTP server", notifications: AuthConfig["notifications"]) {
  const capture = captureMailer()
  const recorded = recordEvents()
  const config = credentialsConfig({ trustedOrigins: ["http://localhost:3000"], notifications: { mailer: capture.mailer, ...notifications }, events: recorded.events })
  let browser: (agent?: string, address?: string) => Browser
  if (transport === "HTTP server") {
    const server = await httpServer(config)
    servers.push(server)
    browser = (agent = FIREFOX_WINDOWS, address = "203.0.113.9") => new Browser(as(server.transport, agent, address), server.origin)
  } else {
    browser = (agent = FIREFOX_WINDOWS, address = "203.0.113.9") => new Browser(as(direct(config), agent, address), "http://localhost:3000")
  }
  return { capture, recorded, browser }
}

/** A browser's user agent, and the address the proxy in front of the app saw (trustHost is on). */
function as(transport: (r: Request) => Promise<Response>, agent: string, address: string) {
  return (request: Request) => {
    request.headers.set("user-agent", agent)
    request.headers.set("x-forwarded-for", address)
    return transport(request)
  }
}

async function signInAgain(b: Browser) {
  await b.signOut()
  expect((await b.signIn()).status).toBe(302)
  expect((await b.session())?.user?.email).toBe(ADA)
}

describe.each(["Auth()", "HTTP server"] as const)("through %s", (transport) => {
  describe("with notifications.newDevice off (the default)", () => {
    it("sends no notice and sets no device cookie", async () => {
      const { capture, recorded, browser } = await setup(transport, {})
      const b = browser()
      await b.signIn()
      await browser(CHROME_ANDROID).signIn()
      expect(capture.sent).toEqual([])
      expect(recorded.notices).toEqual([])
      expect(b.jar.has(COOKIE)).toBe(false)
    })
  })

  describe("with notifications.newDevice on", () => {
    it("tells the owner of the first sign-in in a new browser — which browser, system and address — and not of the next one there", async () => {
      const { capture, recorded, browser } = await setup(transport, { newDevice: true })
      const laptop = browser()
      expect((await laptop.signIn()).status).toBe(302)

      const notices = capture.noticesTo(ADA)
      expect(notices).toHaveLength(1)
      expectCleanNotice(notices[0], "newDevice", [laptop.sessionCookie() ?? "", laptop.jar.get(COOKIE)?.value ?? ""])
      expect(notices[0]!.rendered.subject).toMatch(/^New sign-in to /)
      expect(notices[0]!.rendered.text).toContain("Device: Firefox on Windows, from the address 203.0.113.9.")
      expect(recorded.notices).toEqual([
        expect.objectContaining({ kind: "newDevice", userId: "user-ada", email: ADA, emailed: true, device: { userAgent: FIREFOX_WINDOWS, browser: "Firefox", os: "Windows", ipAddress: "203.0.113.9" } }),
      ])
      // The mark: long-lived, HttpOnly, sealed (a JWE, not the user id).
      const cookie = laptop.jar.get(COOKIE)!
      expect(cookie.attributes.httponly).toBe(true)
      expect(Number(cookie.attributes["max-age"])).toBe(400 * 24 * 60 * 60)
      expect(cookie.value.split(".")).toHaveLength(5)
      expect(cookie.value).not.toContain("user-ada")

      await signInAgain(laptop)
      expect(capture.noticesTo(ADA)).toHaveLength(1)

      // Another browser is another device.
      await browser(CHROME_ANDROID, "198.51.100.23").signIn()
      const second = capture.noticesTo(ADA)
      expect(second).toHaveLength(2)
      expect(second[1]!.rendered.text).toContain("Device: Chrome on Android, from the address 198.51.100.23.")
    })

    it("treats a forged device cookie as a new device, and replaces it", async () => {
      const { capture, browser } = await setup(transport, { newDevice: true })
      const b = browser()
      b.jar.set(COOKIE, { value: "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..forged.forged.forged", attributes: {} })
      await b.signIn()
      expect(capture.noticesTo(ADA).map((m) => m.kind)).toEqual(["newDevice"])
      expect(b.jar.get(COOKIE)!.value).not.toContain("forged")
      await signInAgain(b)
      expect(capture.noticesTo(ADA)).toHaveLength(1)
    })

    it("treats a well-formed cookie sealed under another secret, or an expired one, as a new device", async () => {
      const { capture, browser } = await setup(transport, { newDevice: true })
      // What an attacker can make without the secret: a valid JWE under a key of his own.
      const foreign = await encode({ token: { accounts: [] }, secret: "another-secret-of-at-least-32-characters!", salt: COOKIE })
      const a = browser()
      a.jar.set(COOKIE, { value: foreign, attributes: {} })
      await a.signIn()
      expect(capture.noticesTo(ADA)).toHaveLength(1)

      // A genuine cookie of this site, taken from this browser long ago: expired.
      const stale = browser()
      await stale.signIn()
      const known = stale.jar.get(COOKIE)!.value
      expect(capture.noticesTo(ADA)).toHaveLength(2)
      const expired = await encode({ token: { accounts: [] }, secret: SECRET, salt: COOKIE, maxAge: -60 })
      stale.jar.set(COOKIE, { value: expired, attributes: {} })
      await signInAgain(stale)
      expect(capture.noticesTo(ADA)).toHaveLength(3)
      expect(known).not.toBe(stale.jar.get(COOKIE)!.value)
    })

    it("does not count another account's sign-ins on the same browser", async () => {
      const capture = captureMailer()
      const config = credentialsConfig({ trustedOrigins: ["http://localhost:3000"], notifications: { mailer: capture.mailer, newDevice: true } })
      // A second user, Bob, on the same credentials provider.
      const base = config.providers[0] as { options?: { authorize?: (c: Record<string, unknown>) => unknown } }
      const authorize = base.options!.authorize!
      base.options!.authorize = async (c) => (c.username === "bob" ? { id: "user-bob", name: "Bob", email: "bob@example.com" } : authorize(c))
      const server = transport === "HTTP server" ? await httpServer(config) : undefined
      if (server) servers.push(server)
      const shared = new Browser(as(server?.transport ?? direct(config), FIREFOX_WINDOWS, "203.0.113.9"), server?.origin ?? "http://localhost:3000")
      await shared.signIn({ username: "bob", password: "whatever" })
      await shared.signOut()
      await shared.signIn()
      expect(capture.sent.map((m) => `${m.to} ${m.kind}`)).toEqual(["bob@example.com newDevice", `${ADA} newDevice`])
      // Both are remembered now.
      await shared.signOut()
      await shared.signIn({ username: "bob", password: "whatever" })
      await shared.signOut()
      await shared.signIn()
      expect(capture.sent).toHaveLength(2)
    })
  })
})

describe("the address a new-device notice names", () => {
  it("is the one the integration reports (the socket's), even with rate limits and session metadata off", async () => {
    const capture = captureMailer()
    // No trustHost: X-Forwarded-For is not read, only the integration's clientAddress.
    const auth = createAuth(credentialsConfig({ trustHost: false, trustedOrigins: ["http://localhost:3000"], notifications: { mailer: capture.mailer, newDevice: true } }))
    const transport = (request: Request) => {
      request.headers.set("user-agent", FIREFOX_WINDOWS)
      request.headers.set("x-forwarded-for", "10.9.9.9")
      return auth.handle(request, { clientAddress: "192.0.2.44" })
    }
    await new Browser(transport, "http://localhost:3000").signIn()
    const [notice] = capture.noticesTo(ADA)
    expect(notice!.rendered.text).toContain("Device: Firefox on Windows, from the address 192.0.2.44.")
    expect(notice!.rendered.text).not.toContain("10.9.9.9")
  })
})

