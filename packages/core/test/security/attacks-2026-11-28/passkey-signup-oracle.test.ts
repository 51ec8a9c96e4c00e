/**
 * Issue 28, item 6, re-attempted one step further: the passkey options no longer tell who
 * has an account (`test/webauthn/enumeration.test.ts`), but the sign-up they start still
 * does. A software authenticator finishes a registration ceremony for any address in two
 * requests; the callback refuses a taken address (`AccountNotLinked`) and signs a new one
 * up. So the answer to "register a passkey for victim@…" is the answer to "has victim@… an
 * account?" — the question the password flows' uniform answers hide.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { ORIGIN, PasskeyBrowser } from "../../webauthn/support.js"

const adapter = MemoryAdapter()
const config: AuthConfig = {
  secret: SECRET,
  trustHost: true,
  adapter,
  experimental: { enableWebAuthn: true },
  providers: [Passkey({ relayingParty: { id: "localhost", name: "Test", origin: ORIGIN } })],
  logger: { error: () => {}, warn: () => {}, debug: () => {} },
}
let server: TestServer
const browser = () => new PasskeyBrowser(server.transport, server.origin)

beforeAll(async () => {
  server = await httpServer(config)
  await adapter.createUser!({ id: crypto.randomUUID(), email: "victim@example.com", emailVerified: new Date(), name: null, image: null })
})
afterAll(() => server.close())

/** What the attacker sees of a finished registration for `email`: the redirect's path and error. */
async function probe(email: string) {
  const response = await browser().register(new SoftCredential(ORIGIN, "localhost"), { email })
  const url = new URL(response.headers.get("location")!)
  return { status: response.status, path: url.pathname, error: url.searchParams.get("error") }
}

describe("a scripted passkey sign-up as an account oracle", () => {
  // Hole (Low): lib/kinds/webauthn.ts register() answers AccountNotLinked for a taken
  // address ("An account with this email exists") and a session for a new one. Options
  // uniform, callback not. Hiding it needs the passkey sign-up to prove the address first
  // (a link, as the password sign-up does) or to answer alike.
  it.fails("answers a taken and a free address alike", async () => {
    const taken = await probe("victim@example.com")
    const free = await probe(`nobody-${crypto.randomUUID().slice(0, 8)}@example.com`)
    expect(taken).toEqual(free)
  })
})
