import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { hashPassword, type PasswordOptions } from "@portcullis/core/password"
import Password, { type PasswordUserConfig } from "@portcullis/core/providers/password"
import { Browser, SECRET, type Transport } from "../helpers.js"

/** Light argon2 parameters for seeding users quickly; the provider rehashes them to OWASP's on sign-in. */
export const LIGHT: PasswordOptions = { memoryCost: 1024, timeCost: 1, parallelism: 1 }

export const grace = { email: "grace@example.com", password: "a long and rather unguessable passphrase" }

/**
 * The password emails go out after the response (`waitUntil`): tests that read the mail a
 * step sent hand the sends to this queue, and their transport waits for it after each
 * response — the response itself was made without waiting (test/password/timing.test.ts).
 */
export function mailQueue() {
  const pending = new Set<Promise<unknown>>()
  return {
    waitUntil(promise: Promise<unknown>) {
      pending.add(promise)
      void promise.finally(() => pending.delete(promise))
    },
    async settled() {
      while (pending.size) await Promise.allSettled([...pending])
    },
    /** `transport`, answering only once the sends its request started are done. */
    settling(transport: Transport): Transport {
      return async (request) => {
        const response = await transport(request)
        await this.settled()
        return response
      }
    },
  }
}

/** A password app on `adapter`; `browser()` talks to it in-process from one client address. */
export function passwordApp(adapter: Adapter, options: { provider?: PasswordUserConfig; extra?: Partial<AuthConfig> } = {}) {
  const mail = mailQueue()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    providers: [Password({ waitUntil: mail.waitUntil, ...options.provider })],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    ...options.extra,
  }
  const auth = createAuth(config)
  const browser = (address = "198.51.100.7") => new Browser(mail.settling((request) => auth.handle(request, { clientAddress: address })), "http://localhost:3000")
  return { auth, config, browser, mail }
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

/** The hidden fields of the first form in a page, unescaped the way a browser reads them. */
export function formFields(html: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    out[name!] ??= value!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
  }
  return out
}

/**
 * Opens a verification link in `browser` as a person does: the GET shows the confirm page,
 * whose button posts its form — with `password` typed into its field when given (the
 * registrant keeping the password chosen at sign-up), else with the field left empty.
 * Returns the page and the button's answer.
 */
export async function confirmVerification(browser: Browser, link: string, password?: string) {
  const page = await browser.request(link)
  const html = await page.text()
  if (page.status !== 200) return { page, html, ...(await redirectAnswer(page)) }
  const typed = password === undefined ? {} : { password }
  const response = await browser.request("/auth/password/verify", { form: { ...formFields(html), ...typed } })
  return { page, html, ...(await redirectAnswer(response)) }
}

async function redirectAnswer(response: Response) {
  const location = response.headers.get("location")
  const url = location ? new URL(location) : undefined
  return { response, status: response.status, location, path: url?.pathname, error: url?.searchParams.get("error") ?? null, search: url?.searchParams }
}
