/**
 * `@portcullis/account`: a built-in account center for Portcullis — profile, email change,
 * linked accounts, passkeys, password, two-factor, sessions and deletion — on a page under
 * the base path (`<basePath>/account`), JSON routes for components, and server functions.
 * Built on the public extension API only; what it changes, it changes through core's own
 * operations (`req.account`), so core's checks hold (docs/account.md).
 *
 * @example
 * ```ts
 * import { account } from "@portcullis/account"
 *
 * export const config = {
 *   adapter,
 *   providers,
 *   extensions: [account({ locate: (ip) => geoip.city(ip) })],
 * }
 * // The page: <basePath>/account. On the server, through an integration's extensions():
 * //   const me = await extensions.account.user()
 * ```
 * @module
 */
import { defineExtension, InvalidConfig, type Extension, type ExtensionCall } from "@portcullis/core/extension"
import { messages } from "./messages.js"
import type { AccountLocals, AccountOptions } from "./options.js"
import { accountPage } from "./page.js"
import { actionRoutes, confirmRoute } from "./routes.js"
import { accountServer, type AccountServer } from "./server.js"

export type { AccountLocals, AccountOptions, Locate } from "./options.js"
export type { AccountServer, AccountState } from "./server.js"
export { messages } from "./messages.js"
export { parseUserAgent, type Device } from "./user-agent.js"

/** Default lifetime of an email-change link: an hour, in seconds. */
export const DEFAULT_EMAIL_CHANGE_MAX_AGE = 3600

/**
 * The account center extension, id `"account"`.
 *
 * @example
 * ```ts
 * extensions: [account()]
 * ```
 */
export function account(options: AccountOptions = {}): Extension<"account", AccountServer, AccountLocals> {
  const maxAge = options.emailChangeMaxAge ?? DEFAULT_EMAIL_CHANGE_MAX_AGE
  return defineExtension({
    id: "account",
    setup(): AccountLocals {
      if (options.locate !== undefined && typeof options.locate !== "function") throw new InvalidConfig("account({ locate }) must be a function (ip) => place")
      if (!Number.isInteger(maxAge) || maxAge < 60 || maxAge > 86_400) throw new InvalidConfig("account({ emailChangeMaxAge }) must be a whole number of seconds from 60 to 86400")
      return { locate: options.locate, emailChangeMaxAge: maxAge }
    },
    messages,
    routes: [
      { method: "GET", path: "", answers: "page", handler: accountPage },
      { method: "GET", path: "state", handler: async (req) => ({ json: await accountServer(req).state() }) },
      confirmRoute,
      ...actionRoutes,
    ],
    server: (call: ExtensionCall<AccountLocals>) => accountServer(call),
  })
}
