/**
 * OIDC sign-in against a real OpenID provider process: `oidc-provider` (the demo's
 * `startDemoOidcProvider`) on a loopback port, driven over HTTP the way a browser does,
 * login and consent forms included. Run through `Auth()` and behind a real HTTP server.
 */
import type { Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, direct, SECRET, type Transport } from "../helpers.js"
import { authListener } from "../http-server.js"
import { checkCookies, recordWrites } from "./flow.js"
import { clientId, clientSecret, demoProvider, listen, signInAtOP } from "./real-op.js"

let op: DemoOidcProvider
let realServer: { origin: string; server: Server }
const jwtCalls: { trigger?: string; provider?: string; sub?: unknown; email?: unknown }[] = []

beforeAll(async () => {
  realServer = await listen()
  op = await startDemoOidcProvider({
    port: 0,
    clientId,
    clientSecret,
    redirectUris: ["http://localhost:3000/auth/callback/demo-oidc", `${realServer.origin}/auth/callback/demo-oidc`],
  })
})
afterAll(async () => {
  realServer.server.closeAllConnections()
  await new Promise((resolve) => realServer.server.close(resolve))
  await op.close()
})

function jwtConfig(): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [demoProvider(op.issuer)],
    callbacks: {
      jwt({ token, account, profile, trigger }) {
        if (trigger) jwtCalls.push({ trigger, provider: account?.provider, sub: token.sub, email: profile?.email })
        return token
      },
    },
  }
}

describe.each([
  ["Auth()", async () => ({ transport: direct(jwtConfig()), origin: "http://localhost:3000" })],
  [
    "a real HTTP server",
    async () => {
      realServer.server.on("request", authListener(jwtConfig()))
      const transport: Transport = (request) => fetch(request, { redirect: "manual" })
      return { transport, origin: realServer.origin }
    },
  ],
])("sign-in with oidc-provider, JWT sessions, through %s", (_name, start) => {
  let transport: Transport
  let origin: string
  beforeAll(async () => {
    ;({ transport, origin } = await start())
  })

  it("signs in through the login and consent pages, shows the profile, signs out", async () => {
    const browser = new Browser(transport, origin)
    const response = await signInAtOP(browser, "demo-oidc", "/welcome")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${origin}/welcome`)
    for (const name of checkCookies) expect(browser.jar.has(name)).toBe(false)

    const session = await browser.session()
    expect(session.user).toEqual({ name: "Demo User", email: "demo@portcullis.dev", image: null })

    expect((await browser.signOut()).status).toBe(302)
    expect(await browser.session()).toBeNull()
  })

  it("keeps the user id stable across sign-ins without an adapter, and gives jwt the account and profile", async () => {
    jwtCalls.length = 0
    await signInAtOP(new Browser(transport, origin))
    await signInAtOP(new Browser(transport, origin))
    expect(jwtCalls).toHaveLength(2)
    for (const call of jwtCalls) {
      expect(call).toEqual({ trigger: "signIn", provider: "demo-oidc", sub: "demo-oidc:demo", email: "demo@portcullis.dev" })
    }
  })
})

describe("sign-in with oidc-provider and the memory adapter (database sessions)", () => {
  it("creates the user and the account on first sign-in, reuses them after", async () => {
    const memory = MemoryAdapter()
    const { adapter, writes } = recordWrites(memory)
    const triggers: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      providers: [demoProvider(op.issuer)],
      callbacks: { jwt: ({ token, trigger }) => (trigger && triggers.push(trigger), token) },
    }
    const browser = new Browser(direct(config))
    expect((await signInAtOP(browser)).headers.get("location")).toBe("http://localhost:3000")
    expect(writes).toEqual(["createUser", "linkAccount", "createSession"])
    expect(triggers).toEqual(["signUp"])

    const user = await memory.getUserByAccount!({ provider: "demo-oidc", providerAccountId: "demo" })
    // The provider vouches for the address (email_verified: true), so the user is stored verified (T67).
    expect(user).toMatchObject({ email: "demo@portcullis.dev", name: "Demo User", emailVerified: expect.any(Date) })
    const account = await memory.getAccount!("demo", "demo-oidc")
    expect(account).toMatchObject({ userId: user!.id, type: "oidc", provider: "demo-oidc", token_type: "bearer" })
    expect(typeof account!.access_token).toBe("string")
    expect(typeof account!.id_token).toBe("string")
    expect(account!.expires_at).toBeGreaterThan(Date.now() / 1000)
    expect((await browser.session()).user).toMatchObject({ email: "demo@portcullis.dev", name: "Demo User" })

    writes.length = 0
    const again = new Browser(direct(config))
    await signInAtOP(again)
    expect(writes).toEqual(["createSession"])
    expect((await again.session()).user.email).toBe("demo@portcullis.dev")
  })

  it("refuses with OAuthAccountNotLinked when the address belongs to an existing user", async () => {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "existing", email: "demo@portcullis.dev", emailVerified: null, name: "Somebody" })
    const { adapter, writes } = recordWrites(memory)
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [demoProvider(op.issuer)] }
    const browser = new Browser(direct(config))
    const response = await signInAtOP(browser)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthAccountNotLinked")
    expect(writes).toEqual([])
    expect(await memory.getUserByAccount!({ provider: "demo-oidc", providerAccountId: "demo" })).toBeNull()
    expect(await browser.session()).toBeNull()
  })
})
