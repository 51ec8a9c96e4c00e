import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { hashPassword, type PasswordOptions } from "@portcullis/core/password"
import Password, { type PasswordUserConfig } from "@portcullis/core/providers/password"
import { Browser, SECRET } from "../helpers.js"

/** Light argon2 parameters for seeding users quickly; the provider rehashes them to OWASP's on sign-in. */
export const LIGHT: PasswordOptions = { memoryCost: 1024, timeCost: 1, parallelism: 1 }

export const grace = { email: "grace@example.com", password: "a long and rather unguessable passphrase" }

/** A password app on `adapter`; `browser()` talks to it in-process from one client address. */
export function passwordApp(adapter: Adapter, options: { provider?: PasswordUserConfig; extra?: Partial<AuthConfig> } = {}) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    providers: [Password(options.provider)],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    ...options.extra,
  }
  const auth = createAuth(config)
  const browser = (address = "198.51.100.7") => new Browser((request) => auth.handle(request, { clientAddress: address }), "http://localhost:3000")
  return { auth, config, browser }
}

/** Stores a user with a password, verified unless told otherwise. */
export async function seedUser(adapter: Adapter, user: { email: string; password: string; verified?: boolean; hashing?: PasswordOptions }) {
  const created = await adapter.createUser!({
    id: crypto.randomUUID(),
    email: user.email,
    emailVerified: user.verified === false ? null : new Date(),
    name: null,
    image: null,
  })
  await adapter.setUserPassword!(created.id, await hashPassword(user.password, user.hashing ?? LIGHT))
  return created
}

/** A password sign-in form post (or fetch, with `json`); the response and what it says. */
export async function passwordSignIn(browser: Browser, fields: Record<string, string>, init: { json?: boolean } = {}) {
  const csrfToken = await browser.csrfToken()
  const response = init.json
    ? await browser.request("/auth/callback/password", { json: { ...fields, csrfToken }, headers: { "x-auth-return-redirect": "1" } })
    : await browser.request("/auth/callback/password", { form: { ...fields, csrfToken } })
  const location = response.headers.get("location")
  const error = location ? new URL(location).searchParams.get("error") : null
  return { response, status: response.status, location, error }
}

/** Posts a password step's form (`signup`, `forgot`, `reset`, `change`) with a fresh CSRF token. */
export async function postStep(browser: Browser, step: string, fields: Record<string, string>) {
  const csrfToken = await browser.csrfToken()
  const response = await browser.request(`/auth/password/${step}`, { form: { ...fields, csrfToken } })
  const location = response.headers.get("location")
  const url = location ? new URL(location) : undefined
  return { response, status: response.status, location, path: url?.pathname, error: url?.searchParams.get("error") ?? null }
}

/** A strong password for tests that are not about the policy. */
export const STRONG = "violet tractor sandwich orbit"
