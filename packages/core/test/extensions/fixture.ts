/**
 * The one extension every integration's tests configure (issue 31: server functions exposed
 * through every integration without the integration knowing the extension). Kept tiny and
 * shared, so the five integration suites prove the same behaviours on the same extension:
 * a server function sees the request's signed-in user, `requireSession` throws `NotSignedIn`
 * without one, a cross-site change is refused before any function runs (`ran` stays empty),
 * and the extension's routes are served under the integration's base path.
 */
import { defineExtension } from "@portcullis/core/extension"

/** The fixture's id: its routes are served under `<basePath>/probe/`, its functions under `.probe`. */
export const PROBE_ID = "probe"

/**
 * A fresh "probe" extension and the log of its server functions' runs (one per call of
 * `probeExtension()`, so tests never share state through it).
 *
 * @example
 * ```ts
 * const { extension, ran } = probeExtension()
 * const config = credentialsConfig({ extensions: [extension] })
 * ```
 */
export function probeExtension() {
  const ran: string[] = []
  const extension = defineExtension({
    id: PROBE_ID,
    routes: [
      // Public: proves the integration routes `<basePath>/probe/…` to core at all.
      { method: "GET", path: "hello/:name", access: "anyone", handler: (req) => ({ json: { hello: req.params.name ?? null } }) },
      // Behind a session: proves the integration hands core the browser's cookies.
      { method: "GET", path: "me", handler: async (req) => ({ json: { userId: (await req.requireSession()).userId } }) },
    ],
    server: (call) => ({
      /** The signed-in user's id, or `null`. */
      async whoami(): Promise<string | null> {
        ran.push("whoami")
        return (await call.session())?.userId ?? null
      },
      /** The signed-in user's id; `NotSignedIn` without a session. */
      async mustBeSignedIn(): Promise<string> {
        ran.push("mustBeSignedIn")
        return (await call.requireSession()).userId
      },
    }),
  })
  return { extension, ran }
}
