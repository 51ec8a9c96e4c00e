/**
 * Discovery at the site root (RFC 8414 §3, OpenID Connect Discovery §4): clients of an issuer
 * with a path (`https://app.example/auth/oidc`) look for
 * `/.well-known/oauth-authorization-server/auth/oidc` (and some for
 * `/.well-known/openid-configuration/auth/oidc`). The provider serves the document at
 * `<issuer>/.well-known/…`; an app maps the root paths onto it with {@link wellKnownPath}.
 * @module
 */

/**
 * The provider's discovery path for a site-root well-known path, or `null` when `pathname`
 * is not one for `issuerPath`.
 *
 * @example
 * ```ts
 * // Express: app.get("/.well-known/*", (req, res, next) => { const to = wellKnownPath(req.path, "/auth/oidc"); to ? res.redirect(308, to) : next() })
 * wellKnownPath("/.well-known/oauth-authorization-server/auth/oidc", "/auth/oidc") // "/auth/oidc/.well-known/oauth-authorization-server"
 * ```
 */
export function wellKnownPath(pathname: string, issuerPath: string): string | null {
  const path = issuerPath.replace(/\/+$/, "")
  for (const doc of ["oauth-authorization-server", "openid-configuration"]) {
    if (pathname === `/.well-known/${doc}${path}`) return `${path}/.well-known/${doc}`
  }
  return null
}
