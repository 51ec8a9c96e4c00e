import { NextRequest } from "next/server"
import Credentials from "@portcullis/core/providers/credentials"
import type { NextAuthConfig, NextAuthResult } from "@portcullis/next"

export const origin = "http://app.test"
export const secret = "a-test-secret-that-is-at-least-32-characters-long"

/** A config with one password user (ada / lovelace), JWT sessions. */
export function testConfig(overrides: Partial<NextAuthConfig> = {}): NextAuthConfig {
  return {
    secret,
    trustHost: true,
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: ({ username, password }) => (username === "ada" && password === "lovelace" ? { id: "u1", name: "Ada", email: "ada@example.test" } : null),
      }),
    ],
    ...overrides,
  }
}

/** `name=value` pairs of a response's Set-Cookie headers, as a browser would send them back. */
export function cookiePairs(setCookies: string[]): Map<string, string> {
  const pairs = new Map<string, string>()
  for (const line of setCookies) {
    const [pair] = line.split(";")
    const eq = pair!.indexOf("=")
    pairs.set(pair!.slice(0, eq), pair!.slice(eq + 1))
  }
  return pairs
}

export function cookieHeader(pairs: Map<string, string>): string {
  return [...pairs].filter(([, v]) => v).map(([k, v]) => `${k}=${v}`).join("; ")
}

/**
 * Signs ada in through the real route handlers, as a browser would (CSRF token, then the
 * credentials callback), and returns the cookies the browser would then hold.
 */
export async function signInThroughHandlers(handlers: NextAuthResult["handlers"], basePath = "/api/auth"): Promise<Map<string, string>> {
  const csrf = await handlers.GET(new NextRequest(`${origin}${basePath}/csrf`))
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const jar = cookiePairs(csrf.headers.getSetCookie())
  const response = await handlers.POST(
    new NextRequest(`${origin}${basePath}/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(jar), origin },
      body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace", callbackUrl: "/" }),
    }),
  )
  if (response.status !== 302) throw new Error(`sign-in answered ${response.status}`)
  for (const [k, v] of cookiePairs(response.headers.getSetCookie())) jar.set(k, v)
  if (!jar.get("authjs.session-token")) throw new Error("no session cookie after sign-in")
  return jar
}

/**
 * Stands in for the request store behind `next/headers`, which only exists inside Next's
 * server: `headers()` answers the current request's headers, `cookies()` a jar that records
 * what an action sets (and, as in Next, shows it to later reads in the same request).
 */
export const nextRequestStore = {
  headers: new Headers(),
  cookies: new Map<string, { value: string; options: Record<string, unknown> }>(),
  /** Every `cookies().set` call, in order. */
  sets: [] as { name: string; value: string; options: Record<string, unknown> }[],
  reset(headers: Record<string, string> = {}) {
    this.headers = new Headers({ host: "app.test", "x-forwarded-proto": "http", ...headers })
    this.cookies = new Map()
    this.sets = []
    for (const [name, value] of cookiePairs(this.headers.get("cookie")?.split("; ") ?? [])) this.cookies.set(name, { value, options: {} })
  },
  jar() {
    const store = this.cookies
    const sets = this.sets
    return {
      get: (name: string) => (store.has(name) ? { name, value: store.get(name)!.value } : undefined),
      getAll: () => [...store].map(([name, { value }]) => ({ name, value })),
      set: (name: string, value: string, options: Record<string, unknown> = {}) => {
        sets.push({ name, value, options })
        if (options.maxAge === 0 || (options.expires instanceof Date && options.expires.getTime() <= Date.now())) store.delete(name)
        else store.set(name, { value, options })
      },
      toString: () => [...store].map(([name, { value }]) => `${name}=${value}`).join("; "),
    }
  },
}
