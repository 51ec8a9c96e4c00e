/**
 * The sign-in decision after a successful OAuth exchange (authjs-behaviour §5.5, checklist
 * T54, T55, L1): linking to the signed-in user, refusing email matches, dangerous linking
 * only on verified addresses, compensation when linking fails, and the callbacks' say.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, direct, SECRET } from "../helpers.js"
import { FakeOP } from "./fixtures/fake-op.js"
import { expectFailedClosed, recordWrites, signInThrough } from "./flow.js"

let op: FakeOP
beforeAll(async () => {
  op = await FakeOP.start()
})
afterAll(() => op.close())
beforeEach(() => {
  op.reset()
  op.user = { sub: "user-1", email: "alice@example.com", email_verified: true, name: "Alice" }
})

function provider(id: string, extra: Partial<OAuthConfig<any>> = {}): OAuthConfig<any> {
  return { id, name: id, type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true, ...extra } as OAuthConfig<any>
}

function config(adapter: Adapter, extra: Partial<AuthConfig> = {}, providerExtra: Partial<OAuthConfig<any>> = {}): AuthConfig {
  return { secret: SECRET, trustHost: true, adapter, providers: [provider("alpha", providerExtra), provider("beta", providerExtra)], ...extra }
}

describe("account linking with an adapter", () => {
  it("links a new provider account to the signed-in user", async () => {
    const memory = MemoryAdapter()
    const linked: string[] = []
    const cfg = config(memory, { events: { linkAccount: ({ account }) => void linked.push(`${account.provider}:${account.providerAccountId}`) } })
    const browser = new Browser(direct(cfg))
    await signInThrough(browser, "alpha")
    const alice = await memory.getUserByAccount!({ provider: "alpha", providerAccountId: "user-1" })

    // The same person at another provider, with another address.
    op.user = { sub: "user-2", email: "alice@work.example", email_verified: true, name: "Alice at work" }
    const response = await signInThrough(browser, "beta")
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect(await memory.getUserByAccount!({ provider: "beta", providerAccountId: "user-2" })).toEqual(alice)
    expect(await memory.getUserByEmail!("alice@work.example")).toBeNull()
    expect(linked).toEqual(["alpha:user-1", "beta:user-2"])
  })

  it("T54: accounts are keyed by (provider, sub), not by sub alone", async () => {
    const memory = MemoryAdapter()
    await signInThrough(new Browser(direct(config(memory))), "alpha")
    op.user = { ...op.user, email: "bob@example.com", name: "Bob" }
    await signInThrough(new Browser(direct(config(memory))), "beta")
    const a = await memory.getUserByAccount!({ provider: "alpha", providerAccountId: "user-1" })
    const b = await memory.getUserByAccount!({ provider: "beta", providerAccountId: "user-1" })
    expect(a!.id).not.toBe(b!.id)
  })

  it("refuses an account already linked to another user than the signed-in one", async () => {
    const memory = MemoryAdapter()
    const cfg = config(memory)
    await signInThrough(new Browser(direct(cfg)), "alpha") // Alice owns alpha:user-1
    op.user = { sub: "user-2", email: "bob@example.com", email_verified: true, name: "Bob" }
    const bob = new Browser(direct(cfg))
    await signInThrough(bob, "beta") // Bob is signed in
    op.user = { sub: "user-1", email: "alice@example.com", email_verified: true, name: "Alice" }
    const { adapter, writes } = recordWrites(memory)
    const bobAgain = new Browser(direct(config(adapter)))
    for (const [k, v] of bob.jar) bobAgain.jar.set(k, v)
    const response = await signInThrough(bobAgain, "alpha")
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=OAuthAccountNotLinked")
    expect(writes).toEqual([])
  })

  it("T55: by default an existing address is not linked (OAuthAccountNotLinked, no rows)", async () => {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "victim", email: "alice@example.com", emailVerified: new Date(), name: "Victim" })
    const { adapter, writes } = recordWrites(memory)
    const browser = new Browser(direct(config(adapter)))
    expectFailedClosed(browser, await signInThrough(browser, "alpha"), "signin", "OAuthAccountNotLinked")
    expect(writes).toEqual([])
  })

  it("allowDangerousEmailAccountLinking links a verified address to the existing user", async () => {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "existing", email: "alice@example.com", emailVerified: new Date("2024-01-01"), name: "Alice" })
    const triggers: string[] = []
    const cfg = config(memory, { session: { strategy: "jwt" }, callbacks: { jwt: ({ token, trigger }) => (trigger && triggers.push(trigger), token) } }, { allowDangerousEmailAccountLinking: true })
    const browser = new Browser(direct(cfg))
    expect((await signInThrough(browser, "alpha")).headers.get("location")).toBe("http://localhost:3000")
    expect((await memory.getUserByAccount!({ provider: "alpha", providerAccountId: "user-1" }))!.id).toBe("existing")
    expect(triggers).toEqual(["signIn"])
  })

  it("T67: an unverified user with the address is replaced, not joined, when the provider vouches for it", async () => {
    const memory = MemoryAdapter()
    // The attacker signed up first with the victim's address (e.g. a passkey) and holds a session.
    await memory.createUser!({ id: "squatter", email: "alice@example.com", emailVerified: null, name: "Attacker", image: "https://attacker.example/a.png" })
    await memory.linkAccount!({ userId: "squatter", type: "webauthn", provider: "passkey", providerAccountId: "cred-1" })
    await memory.createSession!({ sessionToken: "attacker-session", userId: "squatter", expires: new Date(Date.now() + 3600_000) })
    const triggers: string[] = []
    const created: string[] = []
    const cfg = config(memory, { session: { strategy: "jwt" }, events: { createUser: ({ user }) => void created.push(user.id) }, callbacks: { jwt: ({ token, trigger }) => (trigger && triggers.push(trigger), token) } }, { allowDangerousEmailAccountLinking: true })
    const browser = new Browser(direct(cfg))
    expect((await signInThrough(browser, "alpha")).headers.get("location")).toBe("http://localhost:3000")

    const alice = await memory.getUserByAccount!({ provider: "alpha", providerAccountId: "user-1" })
    expect(alice!.id).not.toBe("squatter")
    expect(alice).toMatchObject({ email: "alice@example.com", name: "Alice", emailVerified: expect.any(Date) })
    expect(alice!.image ?? null).toBeNull()
    expect(await memory.getUser!("squatter")).toBeNull()
    expect(await memory.getAccount!("cred-1", "passkey")).toBeNull()
    expect(await memory.getSessionAndUser!("attacker-session")).toBeNull()
    expect(created).toEqual([alice!.id])
    expect(triggers).toEqual(["signUp"])
  })

  it("T67: a provider that says nothing about email_verified cannot link to an unverified user", async () => {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "squatter", email: "alice@example.com", emailVerified: null, name: "Attacker" })
    op.behaviour.claims = ({ email_verified: _v, ...c }) => c
    op.user = { sub: "user-1", email: "alice@example.com", name: "Alice" }
    const { adapter, writes } = recordWrites(memory)
    const browser = new Browser(direct(config(adapter, {}, { allowDangerousEmailAccountLinking: true })))
    expectFailedClosed(browser, await signInThrough(browser, "alpha"), "signin", "OAuthAccountNotLinked")
    expect(writes).toEqual([])
    expect(await memory.getUser!("squatter")).not.toBeNull()
  })

  it("a new user is stored verified only when the provider vouches for the address", async () => {
    const memory = MemoryAdapter()
    await signInThrough(new Browser(direct(config(memory))), "alpha")
    expect((await memory.getUserByEmail!("alice@example.com"))!.emailVerified).toBeInstanceOf(Date)
    op.user = { sub: "user-2", email: "bob@example.com", email_verified: false, name: "Bob" }
    await signInThrough(new Browser(direct(config(memory))), "alpha")
    expect((await memory.getUserByEmail!("bob@example.com"))!.emailVerified).toBeNull()
  })

  // The string "true" counts as a yes (Apple sends its booleans as strings); nothing else does.
  it.each([
    ["false", false],
    ["the string \"false\"", "false"],
    ["the string \"yes\"", "yes"],
    ["1", 1],
  ])("T55: allowDangerousEmailAccountLinking still refuses when email_verified is %s", async (_name, verified) => {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "victim", email: "alice@example.com", emailVerified: null, name: "Victim" })
    op.behaviour.claims = (c) => ({ ...c, email_verified: verified })
    const { adapter, writes } = recordWrites(memory)
    const browser = new Browser(direct(config(adapter, {}, { allowDangerousEmailAccountLinking: true })))
    expectFailedClosed(browser, await signInThrough(browser, "alpha"), "signin", "OAuthAccountNotLinked")
    expect(writes).toEqual([])
  })

  it("L1: when linkAccount fails after createUser, the user is removed, and the next attempt succeeds", async () => {
    const memory = MemoryAdapter()
    let failLink = true
    const flaky: Adapter = {
      ...memory,
      async linkAccount(account) {
        if (failLink) throw new Error("database went away")
        await memory.linkAccount!(account)
      },
    }
    const cfg = config(flaky)
    const first = new Browser(direct(cfg))
    expectFailedClosed(first, await signInThrough(first, "alpha"), "error", "ServiceUnavailable")
    expect(await memory.getUserByEmail!("alice@example.com")).toBeNull()

    failLink = false
    const second = new Browser(direct(cfg))
    expect((await signInThrough(second, "alpha")).headers.get("location")).toBe("http://localhost:3000")
    expect(await memory.getUserByAccount!({ provider: "alpha", providerAccountId: "user-1" })).toMatchObject({ email: "alice@example.com" })
  })
})

describe("the app's say", () => {
  it("a signIn callback returning false is AccessDenied, with nothing written", async () => {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const browser = new Browser(direct(config(adapter, { callbacks: { signIn: () => false } })))
    expectFailedClosed(browser, await signInThrough(browser, "alpha"), "error", "AccessDenied")
    expect(writes).toEqual([])
  })

  it("a signIn callback returning a path redirects there, with nothing written", async () => {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const seen: unknown[] = []
    const browser = new Browser(direct(config(adapter, { callbacks: { signIn: ({ profile, account }) => (seen.push({ profile, account }), "/waitlist") } })))
    const response = await signInThrough(browser, "alpha")
    expect(response.headers.get("location")).toBe("http://localhost:3000/waitlist")
    expect(writes).toEqual([])
    expect(seen[0]).toMatchObject({ profile: { sub: "user-1", email: "alice@example.com" }, account: { provider: "alpha", providerAccountId: "user-1" } })
  })

  it("a throwing profile() stops the sign-in (OAuthProfileParseError, shown as Configuration)", async () => {
    const { adapter, writes } = recordWrites(MemoryAdapter())
    const browser = new Browser(direct(config(adapter, {}, { profile: () => { throw new Error("unexpected shape") } })))
    expectFailedClosed(browser, await signInThrough(browser, "alpha"), "error", "Configuration")
    expect(writes).toEqual([])
  })

  it("profile() and account() shape the user and the stored account", async () => {
    const memory = MemoryAdapter()
    const browser = new Browser(direct(config(memory, {}, {
      profile: (p) => ({ id: `x-${p.sub}`, name: String(p.name).toUpperCase(), email: p.email, image: null }),
      account: (tokens) => ({ refresh_token: tokens.refresh_token }),
    })))
    await signInThrough(browser, "alpha")
    const user = await memory.getUserByAccount!({ provider: "alpha", providerAccountId: "x-user-1" })
    expect(user).toMatchObject({ name: "ALICE" })
    const account = await memory.getAccount!("x-user-1", "alpha")
    expect(Object.keys(account!).sort()).toEqual(["provider", "providerAccountId", "refresh_token", "type", "userId"])
  })
})
