import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDemoSmtp, type DemoSmtp } from "@portcullis/example-kit/smtp"

/**
 * Issue 30, attacker's pass on the demo's mail catcher: it prints what it receives to the
 * developer's terminal, and anything on this machine can send it mail. What it prints must
 * not drive that terminal (escape sequences that clear lines or move the cursor could hide
 * or overwrite the real sign-in link).
 */

/** Speaks SMTP to the catcher, one command at a time, and returns the server's replies. */
async function deliver(port: number, recipient: string, body: string, subject = "sign in"): Promise<string> {
  const socket = connect(port, "127.0.0.1")
  let replies = ""
  socket.on("data", (chunk: Buffer) => (replies += chunk.toString()))
  const waitFor = async (count: number) => {
    const deadline = Date.now() + 5_000
    while ((replies.match(/^\d{3} /gm) ?? []).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  }
  await waitFor(1)
  let expected = 1
  for (const command of ["EHLO attacker", "MAIL FROM:<a@attacker.example>", `RCPT TO:<${recipient}>`, "DATA", `Subject: ${subject}\r\n\r\n${body}\r\n.`, "QUIT"]) {
    socket.write(`${command}\r\n`)
    await waitFor(++expected)
  }
  socket.destroy()
  return replies
}

describe("the demo mail catcher prints no control characters", () => {
  let smtp: DemoSmtp
  const lines: string[] = []
  beforeAll(async () => {
    smtp = await startDemoSmtp({ port: 0, log: (line) => lines.push(line) })
  })
  afterAll(() => smtp?.close())

  it("a link carrying escape sequences is printed with them percent-encoded", async () => {
    lines.length = 0
    const body = "http://localhost:3000/auth/callback/email?token=abc\x1b[2K\x1b[1A\x1b]0;title\x07&email=x"
    const replies = await deliver(smtp.port, "victim@example.com", body)
    expect(replies).toContain("250 OK")
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(lines[0]).toBe('[demo-smtp] sign-in link for victim@example.com: http://localhost:3000/auth/callback/email?token=abc%1B[2K%1B[1A%1B]0;title%07&email=x "sign in"')
    expect(smtp.lastLink("victim@example.com")).toBe("http://localhost:3000/auth/callback/email?token=abc%1B[2K%1B[1A%1B]0;title%07&email=x")
  })

  it("a subject with escape sequences is printed escaped (JSON)", async () => {
    lines.length = 0
    await deliver(smtp.port, "victim@example.com", "no link here", "hi\x1b[2K\x1b[1A")
    expect(lines).toEqual(['[demo-smtp] message for victim@example.com ("hi\\u001b[2K\\u001b[1A") has no sign-in link'])
    // Printed after a link too (it says which mail the link came in), escaped the same way.
    lines.length = 0
    await deliver(smtp.port, "victim@example.com", "http://localhost:3000/?token=x", "hi\x1b[2K")
    expect(lines).toEqual(['[demo-smtp] sign-in link for victim@example.com: http://localhost:3000/?token=x "hi\\u001b[2K"'])
  })

  // smtp-server refuses such an address itself (501); pinned so a change of server keeps it.
  it("a recipient carrying escape sequences is refused before anything is printed", async () => {
    lines.length = 0
    const replies = await deliver(smtp.port, "\x1b[2Jvictim@example.com", "http://localhost:3000/?token=x")
    expect(replies).toContain("501")
    expect(lines).toEqual([])
  })

  // Deliberate: anything on this machine may hand the catcher a message, and it prints the
  // link as it came — it stands in for an inbox, and an inbox shows what it was sent. It
  // listens on loopback only (demo.test.ts), so the sender is already on the developer's box.
  it("prints a link to any origin, as an inbox would", async () => {
    lines.length = 0
    await deliver(smtp.port, "victim@example.com", "http://other.example/?token=x")
    expect(lines).toEqual(['[demo-smtp] sign-in link for victim@example.com: http://other.example/?token=x "sign in"'])
  })
})
