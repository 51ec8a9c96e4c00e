/**
 * A session store that can be switched off, for the integrations' "adapter down → the
 * reader reports unavailable, not null" tests: a memory adapter whose every method throws
 * while `down` is set, and a signed-in cookie made through `Auth()`.
 */
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct } from "./helpers.js"

export interface OutageFixture {
  adapter: Adapter
  /** While true, every adapter call fails as a refused connection does. */
  down: boolean
  /** A credentials config (ada) on the store, with database sessions. */
  config(extra?: Partial<AuthConfig>): AuthConfig
  /** Signs ada in and returns the `Cookie` header value her browser would send. */
  signedInCookie(): Promise<string>
}

export function outageFixture(): OutageFixture {
  const memory = MemoryAdapter()
  const wrapped: Record<string, unknown> = {}
  const fixture: OutageFixture = {
    adapter: wrapped as Adapter,
    down: false,
    config: (extra = {}) => credentialsConfig({ adapter: wrapped as Adapter, logger: { error: () => {} }, adapterTimeout: 1_000, ...extra }),
    async signedInCookie() {
      const browser = new Browser(direct(fixture.config({ basePath: "/auth" })))
      await browser.signIn()
      const token = browser.sessionCookie()
      if (!token) throw new Error("sign-in set no session cookie")
      return `authjs.session-token=${token}`
    },
  }
  for (const [name, fn] of Object.entries(memory)) {
    wrapped[name] = async (...args: unknown[]) => {
      if (fixture.down) throw new Error(`${name}: connect ECONNREFUSED 127.0.0.1:5432 (simulated outage)`)
      return (fn as (...a: unknown[]) => unknown).apply(memory, args)
    }
  }
  return fixture
}
