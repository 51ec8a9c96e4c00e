/**
 * Attack on the log through the mail server (issue 29): while the app's mail server is down
 * (or its API key revoked), every email sign-in a client asks for fails to send. Each wrote
 * an `[auth][error]` and the driver's stack: a client that posts its form in a loop wrote
 * two lines and a stack per request. A down mail server is an outage like a down database:
 * its first failure with its cause, then counts, then one line when mail leaves again.
 */
import { afterEach, describe, expect, it } from "vitest"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"
import { consoleLines, flood, STACK_LINE } from "../../logs/support.js"

let server: TestServer | undefined
let printed: ReturnType<typeof consoleLines> | undefined
afterEach(async () => {
  printed?.restore()
  printed = undefined
  await server?.close()
  server = undefined
})

describe("email sign-ins flooded while the mail server is down", () => {
  it("write the outage's cause once and a count, not an error and a stack per request; mail leaving again writes store-recovered", { timeout: 60_000 }, async () => {
    const mail = { down: true, sent: 0 }
    server = await httpServer({
      ...credentialsConfig(),
      adapter: MemoryAdapter(),
      rateLimit: false,
      providers: [
        Nodemailer({
          id: "email",
          server: "smtp://127.0.0.1:1",
          from: "auth@example.com",
          // The app's SMTP relay: refused while down, as nodemailer reports a stopped server.
          sendVerificationRequest: async () => {
            if (mail.down) throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.25:587"), { code: "ECONNREFUSED" })
            mail.sent++
          },
        }),
      ],
    })
    const csrfResponse = await fetch(`${server.origin}/auth/csrf`)
    const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string }
    const cookie = csrfResponse.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
    const askForLink = (i: number) =>
      fetch(`${server!.origin}/auth/signin/email`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ csrfToken, email: `victim-${i}@example.com` }).toString(),
      })

    printed = consoleLines()
    await flood(300, 10, askForLink, (response) => expect(response.headers.get("location")).toContain("error=EmailSignin"))
    mail.down = false
    await (await askForLink(300)).body?.cancel()
    const { calls, lines } = printed
    printed.restore()

    expect(mail.sent).toBe(1)
    expect(lines.length).toBeLessThan(20)
    // The operator still learns why, once.
    const errors = calls.filter((c) => c.level === "error" && c.text.startsWith("[auth][error]"))
    expect(errors).toHaveLength(1)
    expect(errors[0]!.text).toMatch(/EmailSignInError: Sending the sign-in email/)
    expect(calls.map((c) => c.text).join("\n")).toMatch(/ECONNREFUSED 10\.0\.0\.25/)
    expect(lines.filter((l) => STACK_LINE.test(l.text)).length).toBeLessThan(15)
    expect(calls.some((c) => c.text.includes("[store-recovered]") && c.text.includes('"store":"mail sender"'))).toBe(true)
  })
})
