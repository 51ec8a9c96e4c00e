/**
 * The fixture of the session-management suites (`session-management.test.ts`,
 * `session/management-layers.test.ts`): two credentials users, a configuration around a
 * session strategy, and a browser signed in as one of them with a given user agent.
 */
import { expect } from "vitest"
import { Auth, createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, SECRET } from "../helpers.js"

export const ORIGIN = "http://localhost:3000"
export const users: Record<string, { id: string; name: string; email: string }> = {
  ada: { id: "user-ada", name: "Ada", email: "ada@example.com" },
  bob: { id: "user-bob", name: "Bob", email: "bob@example.com" },
}

export function config(session: AuthConfig["session"], extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => users[username as string] ?? null })],
    session,
    ...extra,
  }
}

/** A browser of `config`, signed in as `username` with the given user agent. */
export async function signedIn(cfg: AuthConfig | ReturnType<typeof createAuth>, username = "ada", userAgent = "TestBrowser/1.0"): Promise<Browser> {
  const handle = "handle" in cfg ? (r: Request) => cfg.handle(r) : (r: Request) => Auth(r, cfg)
  const browser = new Browser((request) => {
    request.headers.set("user-agent", userAgent)
    return handle(request)
  }, ORIGIN)
  const response = await browser.signIn({ username })
  expect(response.status).toBe(302)
  expect(browser.sessionCookie()).toBeTruthy()
  return browser
}
