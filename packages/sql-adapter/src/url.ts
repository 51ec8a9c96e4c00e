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
 * The URL with its password masked, for output.
 *
 * @example
 * ```ts
 * redactUrl("postgres://app:s3cret@db/app") // "postgres://app:***@db/app"
 * ```
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@")
}

