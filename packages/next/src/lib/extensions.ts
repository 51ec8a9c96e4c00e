import { extensionFunctions, type ExtensionFunctions } from "@portcullis/core/integration"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { appFor, type NextAuthConfig, type NextAuthConfigInput } from "./config.js"
import { actionURL } from "./session.js"

/**
 * The server functions of the configured extensions (`docs/extensions.md`), by extension id,
 * bound to the request Next.js is serving: its session (cookies from `cookies()`, so one a
 * Server Action just set counts), language and origin. Typed from the configuration's
 * `extensions`.
 *
 * A call that can change something from another site (its `Origin`, or `Sec-Fetch-Site:
 * cross-site`) is refused with `MissingCSRF` before any function runs. Server Actions are
 * POSTs, known by Next's `Next-Action` header; a Route Handler passes its request (or
 * `{ method }`). Without either, a request with an `Origin` header counts as a change:
 * browsers send one with every POST, and never with a page's own navigation.
 *
 * @example
 * ```ts
 * // app/notes/page.tsx (a Server Component)
 * const { notes } = await extensions()
 * const text = await notes.mine()
 * // app/api/notes/route.ts (a Route Handler)
 * export async function POST(request: Request) {
 *   const { notes } = await extensions(request)
 *   return Response.json(await notes.mine())
 * }
 * ```
 */
export type Extensions<E extends NextAuthConfig["extensions"] = NextAuthConfig["extensions"]> = (request?: { method: string }) => Promise<ExtensionFunctions<E>>

/** Builds the `extensions` member of `NextAuth`'s result. */
export function createExtensions<E extends NextAuthConfig["extensions"]>(input: NextAuthConfigInput): Extensions<E> {
  return async (request) => {
    const [app, incoming, jar] = await Promise.all([appFor(input, undefined), nextHeaders(), nextCookies()])
    const headers = new Headers(incoming)
    headers.set("cookie", jar.toString())
    const origin = actionURL("session", headers, app.config).origin
    // Next accepts a Server Action's POST only from the app's own origin, as for the other
    // actions (skipCSRF); core still refuses a cross-site one below.
    const serverAction = headers.has("next-action")
    const method = request?.method ?? (serverAction || headers.has("origin") ? "POST" : "GET")
    return (await extensionFunctions({ origin, headers, method, ...(serverAction && { skipCSRF: true }) }, app.runtime)) as ExtensionFunctions<E>
  }
}
