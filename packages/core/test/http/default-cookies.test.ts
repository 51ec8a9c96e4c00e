import { describe, expect, it } from "vitest"
import { defaultCookies, mergeCookies } from "../../src/lib/cookies.js"

/**
 * Every cookie core sets, by default (`defaultCookies` in `lib/cookies.ts`): Auth.js v5's
 * names, so a migrated app keeps its users signed in, and the same safe attributes on each
 * — HttpOnly, SameSite=Lax, Path=/, Secure on https — with the short-lived check cookies
 * expiring. `../spec/cookies.test.ts` compares the seven Auth.js cookies with Auth.js's own
 * defaults through the flows; this holds all ten, Portcullis's own included.
 */
const names = {
  sessionToken: "authjs.session-token",
  callbackUrl: "authjs.callback-url",
  csrfToken: "authjs.csrf-token",
  pkceCodeVerifier: "authjs.pkce.code_verifier",
  state: "authjs.state",
  nonce: "authjs.nonce",
  webauthnChallenge: "authjs.challenge",
  twoFactorChallenge: "portcullis.two-factor",
  twoFactorDevice: "portcullis.two-factor-device",
  knownDevice: "portcullis.known-device",
} as const

/** Seconds a cookie lives, for the ones that expire on their own. */
const maxAges: Partial<Record<keyof typeof names, number>> = { pkceCodeVerifier: 900, state: 900, nonce: 900, webauthnChallenge: 900, twoFactorChallenge: 300 }

describe("the default cookies", () => {
  it("over http: the plain names, HttpOnly, SameSite=Lax, Path=/, not Secure", () => {
    const cookies = defaultCookies(false)
    expect(Object.keys(cookies).sort()).toEqual(Object.keys(names).sort())
    for (const [key, name] of Object.entries(names) as [keyof typeof names, string][]) {
      expect(cookies[key], key).toEqual({ name, options: { httpOnly: true, sameSite: "lax", path: "/", secure: false, ...(maxAges[key] && { maxAge: maxAges[key] }) } })
    }
  })

  it("over https: __Secure- names, and __Host- for the CSRF cookie (no sibling subdomain can plant it), all Secure", () => {
    const cookies = defaultCookies(true)
    for (const [key, name] of Object.entries(names) as [keyof typeof names, string][]) {
      const prefix = key === "csrfToken" ? "__Host-" : "__Secure-"
      expect(cookies[key], key).toEqual({ name: `${prefix}${name}`, options: { httpOnly: true, sameSite: "lax", path: "/", secure: true, ...(maxAges[key] && { maxAge: maxAges[key] }) } })
    }
  })

  it("each cookie has its own options object: changing one changes no other", () => {
    const cookies = defaultCookies(false)
    cookies.state.options.sameSite = "none"
    expect(cookies.nonce.options.sameSite).toBe("lax")
    expect(defaultCookies(false).state.options.sameSite).toBe("lax")
  })
})

describe("overrides are laid over the defaults, cookie by cookie", () => {
  it("a name, options or both replace only what they name; the rest keep their defaults", () => {
    const merged = mergeCookies(defaultCookies(false), {
      sessionToken: { name: "app.session" },
      state: { options: { sameSite: "none", secure: true } },
    })
    expect(merged.sessionToken).toEqual({ name: "app.session", options: { httpOnly: true, sameSite: "lax", path: "/", secure: false } })
    expect(merged.state).toEqual({ name: "authjs.state", options: { httpOnly: true, sameSite: "none", path: "/", secure: true, maxAge: 900 } })
    expect(merged.nonce).toEqual(defaultCookies(false).nonce)
  })

  it("no overrides leave the defaults as they are", () => {
    const defaults = defaultCookies(true)
    expect(mergeCookies(defaults, undefined)).toBe(defaults)
    expect(mergeCookies(defaults, {})).toEqual(defaults)
  })

  it("an override never changes the defaults it was laid over", () => {
    const defaults = defaultCookies(false)
    mergeCookies(defaults, { csrfToken: { name: "app.csrf", options: { path: "/auth" } } })
    expect(defaults.csrfToken).toEqual({ name: "authjs.csrf-token", options: { httpOnly: true, sameSite: "lax", path: "/", secure: false } })
  })
})
