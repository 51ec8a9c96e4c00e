/**
 * Issue 29, log levels by cause: only our own bugs — and the app's code failing inside
 * ours — are errors with a stack, and every one of them is logged: those lines are worth
 * having. Over a real HTTP server, with the default console logger.
 */
import { afterEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { ada, credentialsConfig } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { consoleLines, STACK_LINE } from "./support.js"

let server: TestServer | undefined
let printed: ReturnType<typeof consoleLines> | undefined
afterEach(async () => {
  printed?.restore()
  await server?.close()
})

/** Signs in `times` times with ada's credentials over HTTP; the `?error=` of each answer. */
async function signIns(config: AuthConfig, times: number): Promise<(string | null)[]> {
  server = await httpServer(config)
  const csrf = await fetch(`${server.origin}/auth/csrf`)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
  const errors: (string | null)[] = []
  for (let i = 0; i < times; i++) {
    const response = await fetch(`${server.origin}/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ csrfToken, ...ada }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    })
    errors.push(new URL(response.headers.get("location")!).searchParams.get("error"))
  }
  return errors
}

/** The `[auth][error]` events printed, each with the lines printed after it up to the next event. */
function errorEvents(calls: { level: string; text: string }[]): string[] {
  const events: string[] = []
  for (const call of calls) {
    if (call.text.startsWith("[auth][error]")) events.push(call.text)
    else if (call.level === "error" && events.length) events[events.length - 1] += `\n${call.text}`
  }
  return events
}

describe("an authorize() that throws a TypeError (a bug in the app's code)", () => {
  it("is an error with its stack, every time", async () => {
    printed = consoleLines()
    const config = credentialsConfig({
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: () => {
            const db = undefined as unknown as { users: { find(): unknown } }
            return db.users.find() as never
          },
        }),
      ],
    })
    expect(await signIns(config, 3)).toEqual(["Configuration", "Configuration", "Configuration"])
    const events = errorEvents(printed.calls)
    expect(events).toHaveLength(3)
    for (const event of events) {
      expect(event).toMatch(/^\[auth\]\[error\] CallbackRouteError: /)
      expect(event).toContain("TypeError: Cannot read properties of undefined (reading 'users')")
      expect(event.split("\n").some((line) => STACK_LINE.test(line))).toBe(true)
    }
  })
})

describe("a signIn callback that throws a TypeError", () => {
  it("is an error with its stack (AccessDenied with a cause), not a refusal's warning", async () => {
    printed = consoleLines()
    const config = credentialsConfig({
      callbacks: {
        signIn: ({ user }) => (user as unknown as { roles: string[] }).roles.includes("admin"),
      },
    })
    expect(await signIns(config, 2)).toEqual(["AccessDenied", "AccessDenied"])
    const events = errorEvents(printed.calls)
    expect(events).toHaveLength(2)
    for (const event of events) {
      expect(event).toMatch(/^\[auth\]\[error\] AccessDenied: /)
      expect(event).toContain("TypeError")
      expect(event.split("\n").some((line) => STACK_LINE.test(line))).toBe(true)
    }
    expect(printed.calls.filter((c) => c.text.startsWith("[auth][warn]"))).toEqual([])
  })

  it("one that returns false is the user's refusal: one sign-in-refused warning a minute, no error", async () => {
    printed = consoleLines()
    expect(await signIns(credentialsConfig({ callbacks: { signIn: () => false } }), 5)).toEqual(Array(5).fill("AccessDenied"))
    expect(errorEvents(printed.calls)).toEqual([])
    const warnings = printed.calls.filter((c) => c.text.startsWith("[auth][warn]"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.text).toMatch(/^\[auth\]\[warn\]\[sign-in-refused\] .*"kind":"AccessDenied"/)
  })
})
