/**
 * Database URLs: which dialect one names, and how to print it without its password. Plain
 * string work, so it is part of the edge entry too.
 * @module
 */
import type { SqlDialect } from "./tables.js"

/** A database URL understood by `connectUrl` (Node entry), split into dialect and target. */
export interface ParsedDatabaseUrl {
  dialect: SqlDialect
  /** The URL the driver gets (for SQLite: the file path). */
  target: string
}

/**
 * Recognises `postgres://`/`postgresql://`, `mysql://`/`mariadb://` and
 * `sqlite:path`/`sqlite://path`/`file:path` (a relative path, or `sqlite:///abs/path`).
 *
 * @example
 * ```ts
 * parseDatabaseUrl("sqlite:data/auth.db") // { dialect: "sqlite", target: "data/auth.db" }
 * parseDatabaseUrl("mariadb://root@db/app") // { dialect: "mysql", target: "mysql://root@db/app" }
 * ```
 */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase()
  switch (scheme) {
    case "postgres":
    case "postgresql":
      return { dialect: "postgres", target: url }
    case "mysql":
    case "mariadb":
      return { dialect: "mysql", target: url.replace(/^mariadb:/i, "mysql:") }
    case "sqlite":
    case "file": {
      const path = url.slice(scheme.length + 1).replace(/^\/\//, "")
      if (!path) throw new Error(`no file path in ${url}`)
      return { dialect: "sqlite", target: path }
    }
    default:
      throw new Error(`unsupported database URL (expected postgres://, mysql:// or sqlite:): ${redactUrl(url)}`)
  }
}

/**
 * The URL with its password masked, for output, whatever shape it was typed in: a password
 * holding "/", "@" or ":" (not percent-encoded), no scheme (`app:pw@db/app`), or a password in
 * the query (`?password=…`, `?sslpassword=…`).
 *
 * @example
 * ```ts
 * redactUrl("postgres://app:s3cret@db/app") // "postgres://app:***@db/app"
 * redactUrl("postgres://app:p/w@db/app?sslpassword=x") // "postgres://app:***@db/app?sslpassword=***"
 * ```
 */
export function redactUrl(url: string): string {
  const [, scheme = "", rest = ""] = /^([a-z][a-z0-9+.-]*:\/\/)?([\s\S]*)$/i.exec(url)!
  let masked = rest
  // The user info ends at the last "@": a host never holds one, a raw password may. An "@" in
  // the query makes this mask the host too, which errs on the safe side.
  const at = rest.lastIndexOf("@")
  const colon = rest.indexOf(":")
  if (at !== -1 && colon !== -1 && colon < at) masked = `${rest.slice(0, colon)}:***${rest.slice(at)}`
  masked = masked.replace(/([?&][^=&#]*(?:pass|pwd|secret|token|key)[^=&#]*=)[^&#]*/gi, "$1***")
  return `${scheme}${masked}`
}
