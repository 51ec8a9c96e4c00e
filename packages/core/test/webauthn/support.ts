/**
 * Shared pieces of the passkey tests: a cookie-jar browser that runs the two WebAuthn
 * round trips with the software authenticator, and the shape of a refusal.
 */
import { expect } from "vitest"
import type { Adapter, AdapterAuthenticator } from "@portcullis/core/adapters"
import { Browser } from "../helpers.js"
import type { SoftCredential, Tweaks } from "./soft-authenticator.js"

/** The site every passkey test runs on (localhost: a relying party id must be a domain). */
export const ORIGIN = "http://localhost:3000"

/** The minimal browser plus the two WebAuthn round trips. */
export class PasskeyBrowser extends Browser {
  async options(query: Record<string, string> = {}, provider = "passkey") {
    const response = await this.request(`/auth/webauthn-options/${provider}?${new URLSearchParams(query)}`)
    return { status: response.status, body: (await response.json()) as any, response }
  }

  async callback(action: string, data: unknown, extra: Record<string, string> = {}, provider = "passkey") {
    const csrfToken = await this.csrfToken()
    return this.request(`/auth/callback/${provider}`, { form: { action, data: typeof data === "string" ? data : JSON.stringify(data), csrfToken, ...extra } })
  }

  async register(credential: SoftCredential, query: Record<string, string> = {}, tweaks: Tweaks = {}) {
    // A sign-up asks for a registration by name (the server never infers it from the address).
    const { body } = await this.options({ action: "register", ...query })
    expect(body.action).toBe("register")
    return this.callback("register", credential.register(body.options, tweaks))
  }

  async authenticate(credential: SoftCredential, query: Record<string, string> = {}, tweaks: Tweaks = {}) {
    const { body } = await this.options({ action: "authenticate", ...query })
    expect(body.action).toBe("authenticate")
    return this.callback("authenticate", credential.authenticate(body.options, tweaks))
  }
}

export const location = (response: Response) => new URL(response.headers.get("location")!)

/** A refusal: back to the sign-in page with `error=<code>`, no session cookie. */
export function expectRefused(response: Response, browser: Browser, code = "WebAuthnVerificationError") {
  expect(response.status).toBe(302)
  const url = location(response)
  expect(url.pathname).toBe("/auth/signin")
  expect(url.searchParams.get("error")).toBe(code)
  expect(browser.sessionCookie()).toBeUndefined()
}

/** The authenticators stored for the user with `email` (`[]` when there is no such user). */
export async function authenticators(adapter: Adapter, email: string): Promise<AdapterAuthenticator[]> {
  const user = await adapter.getUserByEmail!(email)
  return user ? adapter.listAuthenticatorsByUserId!(user.id) : []
}
