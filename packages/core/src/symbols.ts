/**
 * Symbols used as switches in the configuration. Dangerous switches are symbols, not
 * booleans, so a config file loaded from JSON or env can never turn them on by accident.
 *
 * They are registered symbols (`Symbol.for`), so two copies of this package in one
 * process (a bundler's and Node's, say) still agree on them.
 * @module
 */

/**
 * Turns CSRF protection off: `Auth(request, { ...config, skipCSRFCheck })`.
 * Only for framework integrations that protect their own form actions; never for apps.
 */
export const skipCSRFCheck: unique symbol = Symbol.for("portcullis.skip-csrf-check") as any

/** Makes `Auth()` return the internal response object instead of a `Response`. */
export const raw: unique symbol = Symbol.for("portcullis.return-type-raw") as any

/**
 * Key of a `fetch` replacement used for every request a provider makes (discovery, token,
 * userinfo, JWKS, email APIs): a proxy, a cache, custom headers, a test double.
 * It sees tokens and secrets: only hand it code you trust.
 *
 * @example
 * ```ts
 * import { customFetch } from "@portcullis/core"
 * GitHub({ [customFetch]: (url, init) => fetch(url, { ...init, dispatcher: proxyAgent }) })
 * ```
 */
export const customFetch: unique symbol = Symbol.for("portcullis.custom-fetch") as any
