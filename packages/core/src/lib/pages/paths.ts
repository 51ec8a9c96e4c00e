/**
 * Builds the URLs of auth routes from `basePath`.
 *
 * Links on the pages are built from configuration, never from the current request URL,
 * so a crafted request cannot point them elsewhere.
 * @module
 */

/** `{basePath}/{route}`, tolerating a trailing slash on `basePath`. */
export function authRoute(basePath: string, route: string): string {
  return `${basePath.replace(/\/+$/, "")}/${route}`
}
