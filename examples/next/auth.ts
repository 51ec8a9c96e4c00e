import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto"
import NextAuth, { type NextAuthConfig } from "@portcullis/next"
import Credentials from "@portcullis/next/providers/credentials"

/**
 * The demo's one password user. A real app keeps users in its database; the point is the
 * shape of `authorize`: a memory-hard hash, a constant-time compare, and the same answer for
 * an unknown user and a wrong password.
 */
export const demoUser = { username: "demo", password: "portcullis", id: "demo-user", name: "Demo User", email: "demo@portcullis.dev" }

const salt = randomBytes(16)
const scryptParams = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const storedHash = scryptSync(demoUser.password, salt, 32, scryptParams)
// Unknown users are checked against this too, so both cases take the same time.
const decoyHash = scryptSync("decoy", salt, 32, scryptParams)

function passwordMatches(password: string, hash: Buffer): boolean {
  if (password.length > 1024) return false
  return timingSafeEqual(scryptSync(password, salt, 32, scryptParams), hash)
}

/** Whether the local demo OpenID provider is configured (the e2e test and `npm run dev:oidc` start one). */
export const demoOidcEnabled = () => !!process.env.AUTH_DEMO_OIDC_ISSUER

/** The look of the built-in pages, chosen per request by the `x-demo-theme` header. */
const themes = {
  day: { brandColor: "#4f46e5", colorScheme: "light" },
  night: { brandColor: "#f59e0b", colorScheme: "dark" },
} as const

function buildConfig(theme: keyof typeof themes): NextAuthConfig {
  return {
    // AUTH_SECRET comes from the environment.
    pages: { signIn: "/signin" },
    theme: themes[theme],
    providers: [
      Credentials({
        name: "Demo account",
        credentials: {
          username: { label: "Username", autocomplete: "username", required: true },
          password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
        },
        async authorize({ username, password }) {
          const known = username === demoUser.username
          const ok = passwordMatches(String(password ?? ""), known ? storedHash : decoyHash)
          return known && ok ? { id: demoUser.id, name: demoUser.name, email: demoUser.email } : null
        },
      }),
      // clientId, clientSecret and issuer come from AUTH_DEMO_OIDC_ID/_SECRET/_ISSUER.
      ...(demoOidcEnabled() ? [{ id: "demo-oidc", name: "Demo OIDC", type: "oidc" as const, allowInsecureLoopback: true }] : []),
    ],
    callbacks: {
      // Runs in proxy.ts and in route handlers wrapped with auth(fn).
      authorized({ auth, request }) {
        const { pathname } = new URL(request.url)
        // An API answers an API's way: JSON 401, not a redirect to a page.
        if (pathname.startsWith("/api/me") && !auth) return Response.json({ error: "Sign in to use this API" }, { status: 401 })
        if (pathname.startsWith("/protected")) return !!auth
        return true
      },
      jwt({ token, trigger, session }) {
        // `session` is whatever the browser (update) or a server action (unstable_update)
        // sent: untrusted input, so take one field, checked.
        const name = (session as { user?: { name?: unknown } } | undefined)?.user?.name
        if (trigger === "update" && typeof name === "string" && name.trim()) token.name = name.trim().slice(0, 60)
        return token
      },
    },
  }
}

// One object per theme: the config function runs on every request, and returning the same
// object lets Portcullis resolve it once.
const configs = { day: buildConfig("day"), night: buildConfig("night") }

export const { handlers, auth, signIn, signOut, unstable_update } = NextAuth((request) =>
  // `request` is undefined in Server Components and Server Actions: the default look.
  request?.headers.get("x-demo-theme") === "night" ? configs.night : configs.day,
)
