import type { SessionInfo } from "@portcullis/core"
import { listSessions, revokeOtherSessions, revokeSession, signOutEverywhere, type CookieSink } from "@portcullis/core/integration"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { appFor, onServer, type NextAuthConfigInput } from "./config.js"
import { actionURL } from "./session.js"

/**
 * Session management for Server Components (`list`) and Server Actions (the rest), on the
 * app's runtime (`docs/sessions.md`). Changes skip core's double-submit token as the other
 * server actions do: Next accepts Server Action POSTs from the app's own origin only.
 */
export interface SessionManagement {
  /** The signed-in user's sessions, this request's first (`current: true`). */
  list(): Promise<SessionInfo[]>
  /** Revokes one of the signed-in user's sessions by its listed id; `false` when none of theirs has it. */
  revoke(id: string): Promise<boolean>
  /** Revokes every session of the signed-in user but this one; returns how many. */
  revokeOthers(): Promise<number>
  /** Revokes every session of the signed-in user, this one too (its cookie is cleared); returns how many. */
  signOutEverywhere(): Promise<number>
}

export function createSessionManagement(input: NextAuthConfigInput): SessionManagement {
  async function request() {
    const [app, incoming] = await Promise.all([appFor(input, undefined), nextHeaders()])
    const headers = new Headers(incoming)
    return { runtime: app.runtime, request: { origin: actionURL("session", headers, app.config).origin, headers, skipCSRF: true } }
  }
  async function cookieJar(): Promise<CookieSink> {
    const jar = await nextCookies()
    return ({ name, value, options }) => void jar.set(name, value, options)
  }
  return {
    async list() {
      const { runtime, request: r } = await request()
      return onServer(() => listSessions(r, runtime))
    },
    async revoke(id) {
      const { runtime, request: r } = await request()
      const sink = await cookieJar()
      return onServer(() => revokeSession({ ...r, id }, runtime, sink))
    },
    async revokeOthers() {
      const { runtime, request: r } = await request()
      return onServer(() => revokeOtherSessions(r, runtime))
    },
    async signOutEverywhere() {
      const { runtime, request: r } = await request()
      const sink = await cookieJar()
      return onServer(() => signOutEverywhere(r, runtime, sink))
    },
  }
}
