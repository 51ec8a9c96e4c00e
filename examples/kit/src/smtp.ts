import { SMTPServer } from "smtp-server"
import PostalMime from "postal-mime"

/** A running demo mail server. */
export interface DemoSmtp {
  /** The port it listens on (the real one when started with port 0). */
  port: number
  /** `smtp://127.0.0.1:<port>`, ready for `Email({ server })`. */
  url: string
  /** The sign-in link of the last message to `to`, if one arrived. */
  lastLink(to: string): string | undefined
  close(): Promise<void>
}

/** Options of {@link startDemoSmtp}. */
export interface DemoSmtpOptions {
  /** Port on 127.0.0.1; 0 picks a free one. Default 2525. */
  port?: number
  /** Where the links are printed. Default `console.log`. */
  log?: (line: string) => void
}

/** Messages over this size are refused; a sign-in email is a few kilobytes. */
const MAX_MESSAGE = 256 * 1024

/**
 * A development-only mail server: it accepts every message on the loopback interface,
 * delivers nothing, and prints the sign-in link it finds in each one:
 *
 *     [demo-smtp] sign-in link for ada@example.com: http://localhost:3000/auth/callback/email?… "Sign in to localhost:3000"
 *
 * So the email sign-in of the demo works with no mail account. Printing the link is the
 * point here — it stands in for the inbox — and is why this must never run in
 * production: anyone reading the console could sign in as anyone.
 *
 * @example
 * ```ts
 * const smtp = await startDemoSmtp({ port: 2525 })
 * const config = { providers: [Email({ server: smtp.url, from: "Demo <demo@portcullis.dev>" })] }
 * ```
 */
export async function startDemoSmtp(options: DemoSmtpOptions = {}): Promise<DemoSmtp> {
  const log = options.log ?? ((line: string) => console.log(line))
  const links = new Map<string, string>()

  const server = new SMTPServer({
    // Loopback only and no TLS: a stand-in for an inbox, not a mail relay.
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    size: MAX_MESSAGE,
    banner: "Portcullis demo SMTP: messages are printed, never delivered",
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("error", callback)
      stream.on("end", () => {
        if (stream.sizeExceeded) return callback(Object.assign(new Error("Message too large"), { responseCode: 552 }))
        PostalMime.parse(Buffer.concat(chunks))
          .then((email) => {
            const link = findLink(email.text ?? "") ?? findLink(email.html ?? "")
            for (const { address } of session.envelope.rcptTo) {
              const to = address.toLowerCase()
              if (link) {
                links.set(to, link)
                // The subject after the link says which mail it is (a sign-in, a password reset,
                // an invitation); JSON-quoted, so a subject can't drive the terminal either.
                log(`[demo-smtp] sign-in link for ${to}: ${link} ${JSON.stringify(email.subject ?? "")}`)
              } else {
                log(`[demo-smtp] message for ${to} (${JSON.stringify(email.subject ?? "")}) has no sign-in link`)
              }
            }
            callback()
          })
          .catch((error: unknown) => callback(error as Error))
      })
    },
  })

  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 2525, "127.0.0.1", () => {
      server.off("error", reject)
      const address = server.server.address()
      resolve(typeof address === "object" && address ? address.port : (options.port ?? 2525))
    })
  })
  // After start-up, a bad client must not crash the demo: report and keep serving.
  server.on("error", (error) => log(`[demo-smtp] ${error.message}`))

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    lastLink: (to) => links.get(to.toLowerCase()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * The first http(s) URL carrying a `token` parameter: the sign-in link, as the URL parser
 * writes it. That form is what gets printed: it percent-encodes control characters, so a
 * message cannot put escape sequences (clear a line, move the cursor) into the terminal.
 */
function findLink(body: string): string | undefined {
  for (const match of body.matchAll(/https?:\/\/[^\s"'<>]+/g)) {
    const candidate = match[0].replace(/&amp;/g, "&")
    try {
      const url = new URL(candidate)
      if (url.searchParams.has("token")) return url.href
    } catch {
      // Not a URL after all; keep looking.
    }
  }
  return undefined
}
