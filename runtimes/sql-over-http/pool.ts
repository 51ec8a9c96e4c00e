/**
 * A `pg`-shaped pool whose connections are HTTP calls, for Kysely's stock `PostgresDialect`
 * in a Worker — the shape of the serverless drivers Workers apps use (Neon's, Hyperdrive's
 * `pg` over sockets) without a vendor service: `server.ts` runs each query on a real
 * PostgreSQL connection it holds for the pooled client, so transactions stay on one
 * connection, as they do with `pg`. Test support for `runtimes/test/workerd-sql.test.ts`,
 * not a product: a bearer token keeps other local processes out; nothing else does.
 *
 * @example
 * ```ts
 * const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: httpPostgresPool({ url, token }) }) })
 * ```
 * @module
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely"

/** Where the SQL endpoint is, and the token it wants. */
export interface HttpPoolOptions {
  url: string
  token: string
}

/** An error the endpoint reported for a query, with PostgreSQL's SQLSTATE `code` (e.g. `23505`), as `pg` throws it. */
export class RemoteQueryError extends Error {
  readonly code: string | undefined
  constructor(message: string, code: string | undefined) {
    super(message)
    this.name = "RemoteQueryError"
    this.code = code
  }
}

// Parameters cross as JSON: dates as ISO strings (PostgreSQL reads them for timestamptz),
// bigints as decimal strings.
const encode = (body: unknown) => JSON.stringify(body, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))

async function call<T>(options: HttpPoolOptions, path: string, method: string, body?: unknown): Promise<T> {
  const response = await fetch(`${options.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json" },
    ...(body !== undefined && { body: encode(body) }),
  })
  const answer = (await response.json()) as T & { error?: { message: string; code?: string } }
  if (!response.ok || answer.error) throw new RemoteQueryError(answer.error?.message ?? `the SQL endpoint answered ${response.status}`, answer.error?.code)
  return answer
}

/** The pool: `connect()` reserves a connection on the endpoint, `release()` hands it back. */
export function httpPostgresPool(options: HttpPoolOptions): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const { id } = await call<{ id: string }>(options, "/connections", "POST", {})
      return {
        async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          return call<PostgresQueryResult<R>>(options, `/connections/${id}/query`, "POST", { sql, parameters })
        },
        release(destroy?: boolean) {
          // Not awaited (pg's release() is synchronous); a lost release is reclaimed when the endpoint closes.
          void call(options, `/connections/${id}`, "DELETE", { destroy: !!destroy }).catch(() => undefined)
        },
      } as unknown as PostgresPoolClient
    },
    async end() {},
    options: {},
  }
}
