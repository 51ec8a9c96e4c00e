import { createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { memoryRateLimitStore, type RateLimitStore } from "@portcullis/core/rate-limit"
import type { RateLimitedEvent } from "@portcullis/core/rate-limit"
import { ada, Browser, SECRET } from "../helpers.js"

/** A credentials app whose `authorize` calls are counted, with rate limiting on. */
export function lockoutApp(rateLimit: AuthConfig["rateLimit"] = {}, extra: Partial<AuthConfig> = {}) {
  const calls = { authorize: 0 }
  const events: RateLimitedEvent[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        async authorize({ username, password }) {
          calls.authorize++
          if (username === ada.username && password === ada.password) return { id: "user-ada", name: "Ada", email: "ada@example.com" }
          return null
        },
      }),
    ],
    rateLimit,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    events: { rateLimited: (e) => void events.push(e) },
    ...extra,
  }
  const auth = createAuth(config)
  /** A browser whose requests arrive from `address` (as an integration passes the socket's); `null` for none. */
  const browser = (address: string | null = "198.51.100.7") =>
    new Browser((request) => auth.handle(request, { clientAddress: address ?? undefined }), "http://localhost:3000")
  return { auth, calls, events, browser }
}

/** A sign-in form post; the response and what it says. */
export async function attempt(browser: Browser, fields: Record<string, string>, init: { json?: boolean; headers?: Record<string, string> } = {}) {
  const csrfToken = await browser.csrfToken()
  const response = init.json
    ? await browser.request("/auth/callback/credentials", { json: { ...fields, csrfToken }, headers: { "x-auth-return-redirect": "1", ...init.headers } })
    : await browser.request("/auth/callback/credentials", { form: { ...fields, csrfToken }, headers: init.headers })
  const location = response.headers.get("location")
  const error = location ? new URL(location).searchParams.get("error") : undefined
  return { response, status: response.status, location, error, retryAfter: response.headers.get("retry-after") }
}

export const wrong = { username: "ada", password: "wrong" }

/**
 * The memory store with a switch that ends every window at once (what waiting out the
 * windows would do, without a timed test), and one that makes it fail or hang.
 */
export function controllableStore() {
  let inner = memoryRateLimitStore()
  let mode: "ok" | "fail" | "hang" = "ok"
  const gate = <T>(call: () => Promise<T>): Promise<T> =>
    mode === "fail" ? Promise.reject(new Error("store down")) : mode === "hang" ? new Promise<T>(() => {}) : call()
  const keys = new Set<string>()
  const store: RateLimitStore = {
    hit: (key, window, points) => gate(() => (keys.add(key), inner.hit(key, window, points))),
    peek: (key) => gate(() => inner.peek(key)),
    reset: (key) => gate(() => inner.reset(key)),
  }
  return {
    store,
    keys,
    /** Ends the windows of the counters whose keys start with `prefix` (all by default). */
    async expire(prefix = "") {
      for (const key of keys) if (key.startsWith(prefix)) await inner.reset(key)
    },
    fresh() {
      inner = memoryRateLimitStore()
    },
    set mode(m: "ok" | "fail" | "hang") {
      mode = m
    },
  }
}
