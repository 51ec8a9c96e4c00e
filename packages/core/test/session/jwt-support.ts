/**
 * The fixture of the JWT session-strategy suites (`session/jwt-*.test.ts`): cookies made
 * by hand for given claims, a session check that reports what happened to the cookie
 * (re-issued with which claims, deleted, or left alone), and a registry that can be made
 * to fail. Everything goes through the public API: `createAuth`, `encode`/`decode`, the
 * memory adapter and registry.
 */
import { createAuth, type AuthConfig, type AuthRuntime, type SessionRegistry } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { decode, encode } from "@portcullis/core/jwt"
import type { JWT } from "@portcullis/core/jwt"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { parseSetCookie, SECRET } from "../helpers.js"

export const ORIGIN = "http://localhost:3000"
export const COOKIE = "authjs.session-token"
export const now = () => Math.floor(Date.now() / 1000)

/**
 * A configuration with one credentials user ("ada", id `user-ada`), plus whatever the test
 * adds; JWT sessions even with an adapter (which would default to database sessions).
 */
export function jwtConfig(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      Credentials({
        credentials: { username: {} },
        authorize: async ({ username }) => (username === "ada" ? { id: "user-ada", name: "Ada", email: "ada@example.com" } : null),
      }),
    ],
    ...extra,
    session: { strategy: "jwt", ...extra.session },
  }
}

/** A session cookie holding `claims`, sealed as Portcullis seals its own. */
export function cookieOf(claims: JWT): Promise<string> {
  return encode({ token: claims, secret: SECRET, salt: COOKIE })
}

/** The claims of a session cookie. */
export async function claimsOf(value: string): Promise<JWT> {
  return (await decode({ token: value, secret: SECRET, salt: COOKIE }))!
}

/** What one request did to the session cookie. */
export interface Outcome {
  response: Response
  /** The re-issued cookie's value, `"deleted"`, or undefined when the cookie was left alone. */
  cookie: string | "deleted" | undefined
  /** The re-issued cookie's claims. */
  claims: JWT | undefined
}

/** Sends `path` with the session cookie `value` (and other headers), and reads what became of the cookie. */
export async function send(auth: AuthRuntime, path: string, value: string, init: RequestInit = {}): Promise<Outcome> {
  const headers = new Headers(init.headers)
  headers.set("cookie", [headers.get("cookie"), `${COOKIE}=${value}`].filter(Boolean).join("; "))
  const response = await auth.handle(new Request(`${ORIGIN}${path}`, { ...init, headers }))
  const set = response.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === COOKIE)
  const cookie = set === undefined ? undefined : set.value === "" || set.attributes["max-age"] === "0" ? "deleted" : set.value
  return { response, cookie, claims: cookie && cookie !== "deleted" ? await claimsOf(cookie) : undefined }
}

/** `GET /auth/session` with the session cookie `value`: the answer's body, and what became of the cookie. */
export async function check(auth: AuthRuntime, value: string): Promise<Outcome & { session: any }> {
  const outcome = await send(auth, "/auth/session", value)
  return { ...outcome, session: await outcome.response.json() }
}

/** A fresh runtime of `jwtConfig(extra)`. */
export function runtime(extra: Partial<AuthConfig> = {}): AuthRuntime {
  return createAuth(jwtConfig(extra))
}

/** The memory registry, whose removals can be made to fail and are recorded. */
export class FlakyRegistry extends MemorySessionRegistry implements SessionRegistry {
  removeFails = false
  readonly removed: string[][] = []
  override async remove(userId: string, ids: string[]) {
    if (this.removeFails) throw new Error("connection refused")
    this.removed.push([userId, ...ids])
    return super.remove(userId, ids)
  }
}

/** A logger that keeps every line, by level. */
export function recordingLogger() {
  const errors: Error[] = []
  const warnings: [string, unknown][] = []
  const debug: string[] = []
  return {
    errors,
    warnings,
    debug,
    logger: {
      error: (error: Error) => void errors.push(error),
      warn: (code: string, details?: unknown) => void warnings.push([code, details]),
      debug: (message: string) => void debug.push(message),
    },
  }
}
