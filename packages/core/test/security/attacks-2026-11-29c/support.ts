/**
 * Shared pieces of the attack pass on commit fee586c3 (the sign-in gates asked before a
 * sign-in writes anything): a recording, switchable policy gate with the `createUser` and
 * `linkAccount` events beside it, a gate reading a breakable store through
 * `host.wrapStore`, and small readers of what a response and an adapter hold.
 */
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { defineExtension, type ExtensionSignInGateInput } from "@portcullis/core/extension"
import type { Browser } from "../../helpers.js"

export type Asked = Omit<ExtensionSignInGateInput, "locals">

export const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/**
 * A gate extension that records every question and refuses what `refuses` says (switchable
 * at any time through `state.refuses`), with the `createUser` / `linkAccount` / `signIn`
 * events recorded beside it.
 */
export function policy(refuses: (asked: Asked, index: number) => boolean = (asked) => !!asked.email?.endsWith("@refused.test")) {
  const state = { asked: [] as Asked[], created: [] as string[], linked: [] as string[], signedIn: [] as string[], refuses }
  const extension = defineExtension({
    id: "policy",
    signInGate: ({ locals: _locals, ...asked }) => {
      const index = state.asked.push(asked) - 1
      return state.refuses(asked, index) ? { refuse: "the policy refuses this sign-in" } : undefined
    },
  })
  const config = {
    extensions: [extension],
    events: {
      createUser: ({ user }: { user: { email?: string | null } }) => void state.created.push(user.email ?? ""),
      linkAccount: ({ account }: { account: { provider: string } }) => void state.linked.push(account.provider),
      signIn: ({ user }: { user: { email?: string | null } }) => void state.signedIn.push(user.email ?? ""),
    },
  } satisfies Partial<AuthConfig>
  return { state, config }
}

/**
 * A gate reading a policy store through `host.wrapStore` (bounded by `adapterTimeout`, a
 * failure an outage), as the admin console's bans and SSO's domains are read. `mode`
 * switches the store between answering, failing and hanging.
 */
export function storePolicy(mode: { now: "ok" | "fail" | "hang" } = { now: "fail" }) {
  const state = { created: [] as string[], linked: [] as string[], reads: 0 }
  const extension = defineExtension({
    id: "policy",
    setup: (host) => ({
      store: host.wrapStore("policy", {
        async refused(_email: string | undefined): Promise<boolean> {
          state.reads++
          if (mode.now === "fail") throw new Error("connect ECONNREFUSED 10.0.0.9:5432 password=hunter2")
          if (mode.now === "hang") return new Promise<boolean>(() => {})
          return false
        },
      }),
    }),
    signInGate: async ({ email, locals }) => ((await locals.store.refused(email)) ? { refuse: "policy" } : undefined),
  })
  const config = {
    extensions: [extension],
    events: {
      createUser: ({ user }: { user: { email?: string | null } }) => void state.created.push(user.email ?? ""),
      linkAccount: ({ account }: { account: { provider: string } }) => void state.linked.push(account.provider),
    },
  } satisfies Partial<AuthConfig>
  return { mode, state, config }
}

export const hasSession = (browser: Browser) => [...browser.jar.keys()].some((name) => name.includes("session-token"))

/** Where a redirect goes and its `error`, or nulls when the answer is no redirect. */
export function answerOf(response: Response): { status: number; path: string | null; error: string | null } {
  const location = response.headers.get("location")
  if (!location) return { status: response.status, path: null, error: null }
  const url = new URL(location, "http://localhost:3000")
  return { status: response.status, path: url.pathname, error: url.searchParams.get("error") }
}

/** A body a person may see: no stack trace, no store internals. */
export function noInternals(text: string): boolean {
  return !/\n\s+at |node_modules|hunter2|ECONNREFUSED|\/work\//.test(text)
}

/** Every user the (memory) adapter holds, through its `listUsers` scan. */
export async function allUsers(adapter: Adapter): Promise<{ id: string; email: string; emailVerified: Date | null }[]> {
  const listed = await (adapter as unknown as { listUsers(input: { limit: number }): Promise<{ users: { id: string; email: string; emailVerified: Date | null }[] }> }).listUsers({ limit: 10_000 })
  return listed.users
}

/** A timeout wrapper: a request that never answers fails the test instead of hanging it. */
export function within<T>(ms: number, promise: Promise<T>, what = "request"): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms).unref())])
}
