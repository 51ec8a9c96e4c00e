import NextAuth, { type NextAuthConfig } from "@portcullis/next"
import GitHub from "@portcullis/next/providers/github"
import { demoCredentials, demoOidc } from "@portcullis/example-kit"

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
      demoCredentials(),
      // The local OpenID provider, when one runs (the e2e test starts one).
      ...demoOidc({ issuer: process.env.AUTH_DEMO_OIDC_ISSUER, clientId: process.env.AUTH_DEMO_OIDC_ID, clientSecret: process.env.AUTH_DEMO_OIDC_SECRET }),
      // A real provider, as in next-auth: AUTH_GITHUB_ID and AUTH_GITHUB_SECRET from the environment.
      ...(process.env.AUTH_GITHUB_ID ? [GitHub] : []),
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
