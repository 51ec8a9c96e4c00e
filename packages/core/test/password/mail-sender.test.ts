import { describe, expect, it } from "vitest"
import { customFetch } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import Password from "@portcullis/core/providers/password"
import { captureLogger } from "../helpers.js"
import { LIGHT, passwordApp, postStep, seedUser, STRONG } from "./support.js"

/**
 * Who sends the password emails and what the sender is handed (`lib/password-flows/mail.ts`):
 * the provider's `mailer` with its factory options applied, else the configuration's first
 * email provider, else a configuration error; the request's language; the app's `fetch`
 * unless the mailer has its own. And when the send fails, after the answer has gone: the
 * log says which email failed through which sender, scrubbed of the token and link, and the
 * token is deleted — or, if even that fails, the log says so too.
 */

type Request = Parameters<EmailConfig["sendVerificationRequest"]>[0]

/** A mailer that keeps what it is handed; `fail` makes it throw that error instead. */
function keeping(extra: Record<string, unknown> = {}, fail?: (request: Request) => Error) {
  const handed: Request[] = []
  const mailer = {
    id: "kept",
    type: "email",
    name: "Kept",
    from: "default@example.com",
    sendVerificationRequest: async (request: Request) => {
      handed.push(request)
      if (fail) throw fail(request)
    },
    ...extra,
  } as unknown as EmailConfig
  return { mailer, handed }
}

function app(adapter: Adapter, options: { mailer?: EmailConfig; extra?: Record<string, unknown>; waitUntil?: unknown } = {}) {
  const log = captureLogger()
  const errors: Error[] = []
  const logger = { ...log.logger, error: (error: Error) => (errors.push(error), log.logger.error(error)) }
  const built = passwordApp(adapter, {
    provider: { hashing: LIGHT, ...(options.mailer && { mailer: options.mailer }), ...("waitUntil" in options && { waitUntil: options.waitUntil as never }) },
    extra: { logger, ...options.extra },
  })
  return { ...built, log: () => log.lines.join("\n"), errors }
}

describe("the sender", () => {
  it("is the provider's mailer, with the options its factory was given laid over its defaults", async () => {
    const { mailer, handed } = keeping({ options: { from: "Configured <auth@example.com>", name: "Configured" } })
    const a = app(MemoryAdapter(), { mailer })
    await postStep(a.browser(), "signup", { email: "ada@example.com", password: STRONG })
    expect(handed).toHaveLength(1)
    expect(handed[0]!.provider.from).toBe("Configured <auth@example.com>")
    expect(handed[0]!.provider.name).toBe("Configured")
    expect(handed[0]!.provider.id).toBe("kept")
  })

  it("is the mailer as it is, without factory options", async () => {
    const { mailer, handed } = keeping()
    await postStep(app(MemoryAdapter(), { mailer }).browser(), "signup", { email: "ada@example.com", password: STRONG })
    expect(handed[0]!.provider.from).toBe("default@example.com")
  })

  it("without a mailer, is the configuration's first email provider", async () => {
    const first = keeping({ id: "first" })
    const second = keeping({ id: "second" })
    // Listed after the password provider, which is not an email provider.
    const a = app(MemoryAdapter(), { extra: { providers: [Password({ hashing: LIGHT }), first.mailer, second.mailer] } })
    await postStep(a.browser(), "signup", { email: "ada@example.com", password: STRONG })
    await expect.poll(() => first.handed.map((r) => r.identifier)).toEqual(["ada@example.com"])
    expect(second.handed).toEqual([])
  })

  it("without either, is a configuration error naming the provider, and nothing is stored", async () => {
    const adapter = MemoryAdapter()
    const a = app(adapter)
    const answer = await postStep(a.browser(), "signup", { email: "ada@example.com", password: STRONG })
    expect(answer.path).not.toBe("/auth/password/sent")
    expect(a.log()).toContain('The password provider "password" needs a mailer (or an email provider in the configuration) to send sign-up and reset emails')
    expect(await adapter.getUserByEmail!("ada@example.com")).toBeNull()
  })
})

describe("what the sender is handed", () => {
  it("the address, the link and its token and expiry, and the request's language with the email's sentences", async () => {
    const { mailer, handed } = keeping()
    const a = app(MemoryAdapter(), { mailer })
    const b = a.browser()
    const csrfToken = await b.csrfToken()
    await b.request("/auth/password/signup", { form: { email: "ada@example.com", password: STRONG, csrfToken }, headers: { "accept-language": "de" } })
    await a.mail.settled()
    const request = handed[0]!
    expect(request.identifier).toBe("ada@example.com")
    const url = new URL(request.url)
    expect(url.pathname).toBe("/auth/password/verify")
    expect(url.searchParams.get("token")).toBe(request.token)
    expect(request.expires.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000)
    expect(request.request).toBeInstanceOf(Request)
    expect(request.language).toMatchObject({ locale: "de", dir: "ltr" })
    expect(request.language!.messages).toBeDefined()
    expect(JSON.stringify(request.language!.messages)).toMatch(/E-Mail|Adresse/)
  })

  it("the app's fetch, when the mailer has none of its own", async () => {
    const asked: string[] = []
    const appFetch = (async (input: string) => (asked.push(String(input)), new Response(""))) as unknown as typeof fetch
    const { mailer, handed } = keeping()
    await postStep(app(MemoryAdapter(), { mailer, extra: { [customFetch]: appFetch } }).browser(), "signup", { email: "ada@example.com", password: STRONG })
    const handedFetch = (handed[0]!.provider as unknown as Record<symbol, typeof fetch>)[customFetch]!
    await handedFetch("https://mail-api.example/send")
    expect(asked).toEqual(["https://mail-api.example/send"])
  })

  it("the mailer's own fetch, when it has one", async () => {
    const appFetch = (async () => new Response("")) as typeof fetch
    const ownFetch = (async () => new Response("")) as typeof fetch
    const { mailer, handed } = keeping({ [customFetch]: ownFetch })
    await postStep(app(MemoryAdapter(), { mailer, extra: { [customFetch]: appFetch } }).browser(), "signup", { email: "ada@example.com", password: STRONG })
    expect((handed[0]!.provider as unknown as Record<symbol, unknown>)[customFetch]).toBe(ownFetch)
  })
})

describe("a send that fails", () => {
  it("is logged naming the email and the sender, scrubbed of the token and link, and its token is deleted", async () => {
    const base = MemoryAdapter()
    const rows: { identifier: string; token: string }[] = []
    const adapter: Adapter = { ...base, createVerificationToken: (row) => (rows.push(row), base.createVerificationToken!(row)) }
    await seedUser(adapter, { email: "grace@example.com", password: "the owner's own passphrase" })
    const { mailer, handed } = keeping({}, (request) => new Error(`550 refused ${request.url} (token ${request.token})`))
    const a = app(adapter, { mailer })
    await postStep(a.browser(), "forgot", { email: "grace@example.com" })
    await a.mail.settled()
    expect(a.log()).toContain('Sending the resetEmail email with provider "kept" failed')
    expect(a.log()).not.toContain(handed[0]!.token)
    expect(a.log()).not.toContain(handed[0]!.url)
    expect(rows).toHaveLength(1)
    expect(await base.useVerificationToken!(rows[0]!)).toBeNull()
  })

  it("whose token cannot be deleted either: that is logged too, scrubbed of the token and its stored form", async () => {
    const base = MemoryAdapter()
    const rows: { identifier: string; token: string }[] = []
    const adapter: Adapter = {
      ...base,
      createVerificationToken: (row) => (rows.push(row), base.createVerificationToken!(row)),
      useVerificationToken: async (row) => {
        throw new Error(`token store down while deleting ${row.token}`)
      },
    }
    await seedUser(adapter, { email: "grace@example.com", password: "the owner's own passphrase" })
    const { mailer, handed } = keeping({}, () => new Error("550 refused"))
    const a = app(adapter, { mailer })
    await postStep(a.browser(), "forgot", { email: "grace@example.com" })
    await a.mail.settled()
    expect(a.log()).toContain("The token of an unsent password email could not be deleted")
    expect(a.log()).toContain('Sending the resetEmail email with provider "kept" failed')
    expect(a.log()).not.toContain(rows[0]!.token)
    expect(a.log()).not.toContain(handed[0]!.token)
  })
})

describe("the send in the background", () => {
  it("without waitUntil, still goes out, and nothing is logged", async () => {
    const { mailer, handed } = keeping()
    const a = app(MemoryAdapter(), { mailer, waitUntil: undefined })
    await postStep(a.browser(), "signup", { email: "ada@example.com", password: STRONG })
    await expect.poll(() => handed.length).toBe(1)
    expect(a.errors).toEqual([])
  })

  it("with a waitUntil that throws (called outside its request), goes out all the same, the answer unchanged, the throw logged", async () => {
    const { mailer, handed } = keeping()
    const a = app(MemoryAdapter(), {
      mailer,
      waitUntil: () => {
        throw new Error("waitUntil called outside of a request scope")
      },
    })
    const answer = await postStep(a.browser(), "signup", { email: "ada@example.com", password: STRONG })
    expect(answer.path).toBe("/auth/password/sent")
    await expect.poll(() => handed.length).toBe(1)
    expect(a.log()).toContain("waitUntil called outside of a request scope")
  })
})
