/**
 * Shared pieces of the email sign-in tests: a real SMTP server on loopback (smtp-server)
 * whose messages are parsed from raw MIME (postal-mime), and a config builder.
 */
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"
import PostalMime, { type Email as ParsedEmail } from "postal-mime"
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import type { NodemailerUserConfig } from "@portcullis/core/providers/nodemailer"
import { Browser, SECRET, type Transport } from "../helpers.js"

/** One message as the SMTP server received it. */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  to: string[]
  raw: string
  parsed: ParsedEmail
}

export interface TestSmtp {
  url: string
  port: number
  /** Every accepted message, oldest first. */
  messages: ReceivedMail[]
  /** TCP connections opened, accepted or not: "the server saw nothing" means 0. */
  connections: number
  /** The sign-in link in the last message to `to`. */
  linkFor(to: string): string
  close(): Promise<void>
}

/**
 * Starts an SMTP server on 127.0.0.1. `refuseRecipient` makes RCPT TO answer 550 for
 * matching addresses, as a real server does for an unknown mailbox.
 */
export async function startSmtp(options: { refuseRecipient?: (address: string) => boolean } = {}): Promise<TestSmtp> {
  const state = { messages: [] as ReceivedMail[], connections: 0 }
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      state.connections++
      callback()
    },
    onRcptTo(address, _session, callback) {
      if (options.refuseRecipient?.(address.address)) {
        return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }))
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks)
        try {
          const parsed = await PostalMime.parse(raw)
          state.messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: raw.toString("utf8"), parsed })
          callback()
        } catch (error) {
          callback(error as Error)
        }
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    get messages() {
      return state.messages
    },
    get connections() {
      return state.connections
    },
    linkFor(to) {
      const mail = state.messages.findLast((m) => m.to.includes(to))
      if (!mail) throw new Error(`no mail to ${to}; got mail to ${state.messages.map((m) => m.to.join(",")).join("; ") || "nobody"}`)
      return extractLink(mail.parsed.text ?? "")
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The sign-in link in a text body: the line that is an http(s) URL. */
export function extractLink(text: string): string {
  const line = text.split(/\r?\n/).find((l) => /^https?:\/\//.test(l.trim()))
  if (!line) throw new Error(`no link in: ${text}`)
  return line.trim()
}

/**
 * A config with one Nodemailer provider (id `email`) on `smtp`, plus whatever the test adds.
 * Its links sign in on the GET (`interstitial: false`, Auth.js's behaviour), since the tests
 * that use it are about the token; interstitial.test.ts covers the default (a confirm page).
 */
export function emailConfig(adapter: Adapter, smtpUrl: string, extra: Partial<AuthConfig> = {}, provider: Partial<NodemailerUserConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    providers: [Nodemailer({ id: "email", server: smtpUrl, from: "Portcullis Tests <auth@example.com>", interstitial: false, ...provider })],
    ...extra,
  }
}

/** Posts the sign-in form the way the built-in page does. */
export async function requestLink(browser: Browser, email: string, fields: Record<string, string> = {}, provider = "email"): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  return browser.request(`/auth/signin/${provider}`, { form: { email, csrfToken, ...fields } })
}

/** A browser on `transport` (a fresh cookie jar). */
export function newBrowser(transport: Transport): Browser {
  return new Browser(transport)
}

/** Records what reached the adapter's verification-token methods, passing calls through. */
export function spyTokens(adapter: Adapter) {
  const created: { identifier: string; token: string; expires: Date }[] = []
  const wrapped: Adapter = {
    ...adapter,
    async createVerificationToken(vt) {
      created.push({ ...vt })
      return adapter.createVerificationToken!(vt)
    },
  }
  return { adapter: wrapped, created }
}

/** The `error` query parameter of a redirect, and its path. */
export function redirectOf(response: Response): { path: string; error: string | null; url: URL } {
  const location = response.headers.get("location")
  if (!location) throw new Error(`expected a redirect, got ${response.status}`)
  const url = new URL(location)
  return { path: url.pathname, error: url.searchParams.get("error"), url }
}

/**
 * Opens a magic link as a person does: the GET shows the confirm page (the default), whose
 * button posts its form; returns the button's answer. A link that answers the GET with a
 * redirect (an error, or `interstitial: false`) returns that.
 */
export async function openLink(browser: Browser, link: string): Promise<Response> {
  const page = await browser.request(link)
  if (page.status !== 200) return page
  const html = await page.text()
  const form: Record<string, string> = {}
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form[name!] = value!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
  }
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&")
  if (!action) throw new Error("the link's page has no form")
  return browser.request(action, { form })
}
