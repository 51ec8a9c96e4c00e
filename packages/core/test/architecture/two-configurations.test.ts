/**
 * Issue 14: state belongs to the object built from a configuration. Two configurations in
 * one process (two tenants, two adapters) must never answer each other's questions, even
 * when their requests overlap in time and carry the same cookie value.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { Adapter, AdapterSession, AdapterUser } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET } from "../helpers.js"

/** A memory adapter whose session reads wait for `gate`, so checks of both tenants overlap. */
function slowAdapter(gate: Promise<void>): Adapter {
  const inner = MemoryAdapter()
  return {
    ...inner,
    async getSessionAndUser(token: string) {
      await gate
      return inner.getSessionAndUser!(token)
    },
  }
}

async function seed(adapter: Adapter, token: string, name: string): Promise<void> {
  const user: AdapterUser = await adapter.createUser!({ id: crypto.randomUUID(), email: `${name.toLowerCase()}@${name.toLowerCase()}.example`, emailVerified: null, name })
  const session: AdapterSession = { sessionToken: token, userId: user.id, expires: new Date(Date.now() + 3_600_000) }
  await adapter.createSession!(session)
}

const config = (adapter: Adapter): AuthConfig => ({ secret: SECRET, trustHost: true, adapter, session: { strategy: "database" }, providers: [] })

const check = (cfg: AuthConfig, token: string) =>
  Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie: `authjs.session-token=${token}` } }), cfg).then((r) => r.json())

describe("two configurations in one process", () => {
  it("concurrent database session checks with the same token each get their own adapter's answer", async () => {
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const a = slowAdapter(gate)
    const b = slowAdapter(gate)
    // The same token in both tenants' tables: a shared in-flight map keyed by token alone
    // would hand tenant B tenant A's user.
    const token = "f".repeat(64)
    await seed(a, token, "Alice")
    await seed(b, token, "Bob")
    const tenantA = config(a)
    const tenantB = config(b)
    const answers = [check(tenantA, token), check(tenantB, token), check(tenantA, token), check(tenantB, token)]
    open()
    const [a1, b1, a2, b2] = await Promise.all(answers)
    expect([a1.user.name, a2.user.name]).toEqual(["Alice", "Alice"])
    expect([b1.user.name, b2.user.name]).toEqual(["Bob", "Bob"])
  })

  it("a configuration whose adapter has no such session answers null while the other answers its user", async () => {
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const a = slowAdapter(gate)
    const b = slowAdapter(gate)
    const token = "e".repeat(64)
    await seed(a, token, "Alice")
    const answers = Promise.all([check(config(a), token), check(config(b), token)])
    open()
    const [fromA, fromB] = await answers
    expect(fromA.user.name).toBe("Alice")
    expect(fromB).toBeNull()
  })

  it("a JWT cookie one configuration has verified is not trusted by another with a different secret", async () => {
    const { encode } = await import("@portcullis/core/jwt")
    const token = await encode({ token: { name: "Alice", sub: "1" }, secret: SECRET, salt: "authjs.session-token" })
    const first: AuthConfig = { secret: SECRET, trustHost: true, providers: [] }
    const second: AuthConfig = { secret: "another-secret-with-at-least-32-characters", trustHost: true, providers: [] }
    expect((await check(first, token)).user.name).toBe("Alice")
    expect(await check(second, token)).toBeNull()
  })
})

describe("the runtime's browser client", () => {
  it("is bound to the configuration's base path", async () => {
    const { createAuth } = await import("@portcullis/core")
    const runtime = createAuth({ secret: SECRET, trustHost: true, basePath: "/api/auth", providers: [] })
    const calls: string[] = []
    const original = globalThis.fetch
    globalThis.fetch = (async (input: string) => {
      calls.push(String(input))
      return new Response("null", { headers: { "content-type": "application/json" } })
    }) as typeof fetch
    try {
      expect(await runtime.browserClient().getSession()).toBeNull()
    } finally {
      globalThis.fetch = original
    }
    expect(calls).toEqual(["/api/auth/session"])
  })
})
