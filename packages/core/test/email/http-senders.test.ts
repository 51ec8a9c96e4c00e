import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { customFetch, type AuthConfig } from "@portcullis/core"
import type { EmailConfig } from "@portcullis/core/providers/email"
import Postmark from "@portcullis/core/providers/postmark"
import Resend from "@portcullis/core/providers/resend"
import SendGrid, { parseSender } from "@portcullis/core/providers/sendgrid"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, direct, SECRET } from "../helpers.js"
import { extractLink, newBrowser, openLink, redirectOf, requestLink } from "./support.js"

/**
 * Resend, SendGrid and Postmark. Their real APIs cannot be reached from the test
 * machines, so a local node:http server stands in for each, reached through
 * `customFetch` (which is also what is under test: senders must use it). The stand-in
 * checks what their public docs require — endpoint, auth header, JSON fields — and can
 * answer with errors.
 */
interface Captured {
  /** The URL the sender asked for, before the customFetch rerouted it. */
  url: string
  path: string
  headers: IncomingHttpHeaders
  body: any
}

interface StandIn {
  origin: string
  requests: Captured[]
  /** The next answers, by path; default 200 `{}` (202 for SendGrid). */
  answer: Map<string, { status: number; body: unknown }>
  /** A fetch that reroutes any https URL to this server, remembering the original. */
  fetch: typeof fetch
  close(): Promise<void>
}

async function startStandIn(): Promise<StandIn> {
  const requests: Captured[] = []
  const answer = new Map<string, { status: number; body: unknown }>()
  const pendingUrls: string[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      requests.push({ url: pendingUrls.shift()!, path: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined })
      const planned = answer.get(req.url!)
      answer.delete(req.url!)
      const status = planned?.status ?? (req.url === "/v3/mail/send" ? 202 : 200)
      res.writeHead(status, { "content-type": "application/json" })
      // An error answer that echoes the link it was given, as some APIs do with invalid
      // content: the token must still not reach the logs.
      const echoed = /https?:\/\/[^\s"\\]+token=[^\s"\\]+/.exec(text)?.[0]
      res.end(planned?.body === "echo" ? JSON.stringify({ message: `rejected: ${echoed}` }) : JSON.stringify(planned?.body ?? { id: "msg_1", ErrorCode: 0 }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    requests,
    answer,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input)
      pendingUrls.push(url.href)
      return fetch(`${origin}${url.pathname}`, init)
    }) as typeof fetch,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

let api: StandIn
beforeAll(async () => {
  api = await startStandIn()
})
afterAll(async () => {
  await api.close()
})
afterEach(() => {
  vi.unstubAllEnvs()
})

function configFor(provider: EmailConfig, extra: Partial<AuthConfig> = {}) {
  const log = captureLogger()
  const config: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [provider], logger: log.logger, [customFetch]: api.fetch, ...extra }
  return { config, log, browser: newBrowser(direct(config)) }
}

/** Each sender: how it is made, and how to read recipient, sender and text from its request. */
const senders = [
  {
    name: "Resend",
    make: (o: { apiKey?: string } = {}) => Resend({ from: "Example <no-reply@example.com>", ...o }),
    id: "resend",
    endpoint: "https://api.resend.com/emails",
    envKey: "AUTH_RESEND_KEY",
    checkAuth: (h: IncomingHttpHeaders, key: string) => expect(h.authorization).toBe(`Bearer ${key}`),
    read: (b: any) => ({ to: b.to, from: b.from, subject: b.subject, text: b.text, html: b.html }),
  },
  {
    name: "SendGrid",
    make: (o: { apiKey?: string } = {}) => SendGrid({ from: "Example <no-reply@example.com>", ...o }),
    id: "sendgrid",
    endpoint: "https://api.sendgrid.com/v3/mail/send",
    envKey: "AUTH_SENDGRID_KEY",
    checkAuth: (h: IncomingHttpHeaders, key: string) => expect(h.authorization).toBe(`Bearer ${key}`),
    read: (b: any) => {
      expect(b.personalizations).toHaveLength(1)
      expect(b.content.map((c: any) => c.type)).toEqual(["text/plain", "text/html"])
      expect(b.tracking_settings).toEqual({ click_tracking: { enable: false, enable_text: false } })
      return {
        to: b.personalizations[0].to.map((t: any) => t.email).join(","),
        from: `${b.from.name} <${b.from.email}>`,
        subject: b.subject,
        text: b.content[0].value,
        html: b.content[1].value,
      }
    },
  },
  {
    name: "Postmark",
    make: (o: { apiKey?: string } = {}) => Postmark({ from: "Example <no-reply@example.com>", ...o }),
    id: "postmark",
    endpoint: "https://api.postmarkapp.com/email",
    envKey: "AUTH_POSTMARK_KEY",
    checkAuth: (h: IncomingHttpHeaders, key: string) => expect(h["x-postmark-server-token"]).toBe(key),
    read: (b: any) => {
      expect(b.MessageStream).toBe("outbound")
      expect(b.TrackLinks).toBe("None")
      return { to: b.To, from: b.From, subject: b.Subject, text: b.TextBody, html: b.HtmlBody }
    },
  },
]

describe.each(senders)("$name sender (against a local stand-in for its API)", (s) => {
  it("posts the documented request shape, and the mailed link signs in", async () => {
    const { browser } = configFor(s.make({ apiKey: "key_123" }))
    const before = api.requests.length
    const sent = await requestLink(browser, "Api.User@Example.com", {}, s.id)
    expect(sent.headers.get("location")).toBe(`http://localhost:3000/auth/verify-request?provider=${s.id}&type=email`)
    expect(api.requests).toHaveLength(before + 1)
    const request = api.requests.at(-1)!
    expect(request.url).toBe(s.endpoint)
    expect(request.headers["content-type"]).toBe("application/json")
    s.checkAuth(request.headers, "key_123")
    const mail = s.read(request.body)
    expect(mail).toMatchObject({ to: "api.user@example.com", from: "Example <no-reply@example.com>", subject: "Sign in to localhost:3000" })
    expect(mail.html).toContain("Sign in</a>")
    await openLink(browser, extractLink(mail.text))
    expect((await browser.session()).user.email).toBe("api.user@example.com")
  })

  it(`reads the API key from ${s.envKey} when none is passed`, async () => {
    vi.stubEnv(s.envKey, "key_from_env")
    const { browser } = configFor(s.make())
    await requestLink(browser, "env@example.com", {}, s.id)
    s.checkAuth(api.requests.at(-1)!.headers, "key_from_env")
  })

  it("without any API key: EmailSignin, and nothing reaches the API", async () => {
    const { browser, log } = configFor(s.make())
    const before = api.requests.length
    expect(redirectOf(await requestLink(browser, "nokey@example.com", {}, s.id))).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
    expect(api.requests).toHaveLength(before)
    expect(log.lines.join("\n")).toContain(s.envKey)
  })

  it("a non-2xx answer: EmailSignin, logged without the token, and the link it carried is dead", async () => {
    const { browser, log } = configFor(s.make({ apiKey: "key_123" }))
    const path = new URL(s.endpoint).pathname
    api.answer.set(path, { status: 422, body: "echo" })
    const response = await requestLink(browser, "fail@example.com", {}, s.id)
    expect(redirectOf(response)).toMatchObject({ path: "/auth/signin", error: "EmailSignin" })
    // The API did receive the message before refusing it; its link must not work.
    const link = extractLink(s.read(api.requests.at(-1)!.body).text)
    const token = new URL(link).searchParams.get("token")!
    const logged = log.lines.join("\n")
    expect(logged).toContain(`${s.name} answered 422`)
    expect(logged).toContain("[redacted]")
    expect(logged).not.toContain(token)
    expect(redirectOf(await openLink(browser, link))).toMatchObject({ error: "Verification" })
  })
})

describe("HTTP senders and customFetch", () => {
  it("a provider's own [customFetch] wins over the config's", async () => {
    const configFetch = vi.fn(async () => new Response("config fetch must not be used", { status: 599 }))
    const provider = SendGrid({ apiKey: "key_own", from: "no-reply@example.com", [customFetch]: api.fetch })
    const { browser } = configFor(provider, { [customFetch]: configFetch as unknown as typeof fetch })
    const response = await requestLink(browser, "own@example.com", {}, "sendgrid")
    expect(response.headers.get("location")).toContain("/auth/verify-request")
    expect(configFetch).not.toHaveBeenCalled()
    expect(api.requests.at(-1)!.body.from).toEqual({ email: "no-reply@example.com" })
  })

  it("Postmark: an ErrorCode other than 0 is a failure even on a 200", async () => {
    const { browser } = configFor(Postmark({ apiKey: "key_123", from: "no-reply@example.com" }))
    api.answer.set("/email", { status: 200, body: { ErrorCode: 406, Message: "Inactive recipient" } })
    expect(redirectOf(await requestLink(browser, "inactive@example.com", {}, "postmark")).error).toBe("EmailSignin")
  })

  it("parses the sender the way SendGrid wants it", () => {
    expect(parseSender("Example <no-reply@example.com>")).toEqual({ name: "Example", email: "no-reply@example.com" })
    expect(parseSender('"Example, Inc." <no-reply@example.com>')).toEqual({ name: "Example, Inc.", email: "no-reply@example.com" })
    expect(parseSender("no-reply@example.com")).toEqual({ email: "no-reply@example.com" })
  })
})
