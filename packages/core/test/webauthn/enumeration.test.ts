/**
 * Issue 28 item 6: `GET /webauthn-options/<passkey>?email=` told anyone whether an address has
 * an account — `authenticate` (with the account's passkeys listed) for a known one, `register`
 * for an unknown one; an explicit `register` was a 400 for a known address only. The attacker
 * asks about the victim's address and about one nobody has, over a real server, and compares.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { SoftCredential } from "./soft-authenticator.js"
import { authenticators, ORIGIN, PasskeyBrowser } from "./support.js"

const VICTIM = "victim@example.com"
const NOBODY = "nobody-at-all@example.com"

const adapter = MemoryAdapter()
const config: AuthConfig = {
  secret: SECRET,
  trustHost: true,
  adapter,
  experimental: { enableWebAuthn: true },
  // The ceremonies name the site as the soft authenticator sees it, whatever port the server has.
  providers: [Passkey({ relayingParty: { id: "localhost", name: "Test", origin: ORIGIN } })],
  logger: { error: () => {}, warn: () => {}, debug: () => {} },
}
let server: TestServer
const browser = () => new PasskeyBrowser(server.transport, server.origin)

beforeAll(async () => {
  server = await httpServer(config)
  // The victim signed up with a passkey.
  const victim = browser()
  expect((await victim.register(new SoftCredential(ORIGIN, "localhost"), { email: VICTIM })).status).toBe(302)
  expect(await authenticators(adapter, VICTIM)).toHaveLength(1)
})
afterAll(() => server.close())

/**
 * What an observer can compare of an options answer: status, headers and cookie names, and the
 * body with its random values (challenge, user handle) and the address it was asked about masked.
 */
async function observed(query: Record<string, string>) {
  const { status, body, response } = await browser().options(query)
  const email = query.email!
  const text = JSON.stringify(body)
    .replaceAll(email, "<email>")
    .replace(/"challenge":"[^"]*"/, '"challenge":"<random>"')
    .replace(/"user":\{"id":"[^"]*"/, '"user":{"id":"<random>"')
  return {
    status,
    headers: [...response.headers.keys()].filter((h) => h !== "date" && h !== "content-length").sort(),
    cookies: response.headers.getSetCookie().map((c) => c.split("=")[0]),
    body: JSON.parse(text),
  }
}

describe("the options for an address with an account and for one without", () => {
  it.each([
    ["no action (the built-in form's sign-in button, signIn(\"passkey\", { email }))", {}],
    ["action=authenticate", { action: "authenticate" }],
    ["action=register (signing up)", { action: "register" }],
  ])("are indistinguishable with %s", async (_name, extra: Record<string, string>) => {
    const known = await observed({ ...extra, email: VICTIM })
    const unknown = await observed({ ...extra, email: NOBODY })
    expect(known).toEqual(unknown)
    expect(known.status).toBe(200)
  })

  it("never list the account's passkeys, and name the same ceremony", async () => {
    for (const email of [VICTIM, NOBODY]) {
      const plain = await observed({ email })
      expect(plain.body.action, email).toBe("authenticate")
      expect(plain.body.options.allowCredentials, email).toBeUndefined()
      const signUp = await observed({ action: "register", email })
      expect(signUp.body.action, email).toBe("register")
      expect(signUp.body.options.excludeCredentials, email).toEqual([])
    }
  })
})

describe("passkeys after the change", () => {
  it("still sign the victim in (any passkey the browser holds), and sign up a new address", async () => {
    const key = new SoftCredential(ORIGIN, "localhost")
    const newcomer = browser()
    expect((await newcomer.register(key, { email: "newcomer@example.com" })).status).toBe(302)
    await newcomer.signOut()
    expect((await newcomer.authenticate(key, { email: "newcomer@example.com" })).status).toBe(302)
    expect((await newcomer.session()).user.email).toBe("newcomer@example.com")
  })

  it("refuse a sign-up onto the victim's address at the callback: no passkey is added to her account", async () => {
    const attacker = browser()
    const response = await attacker.register(new SoftCredential(ORIGIN, "localhost"), { email: VICTIM })
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("AccountNotLinked")
    expect(attacker.sessionCookie()).toBeUndefined()
    expect(await authenticators(adapter, VICTIM)).toHaveLength(1)
  })
})
