/**
 * The line protocol of two-process tests, worker side: what a worker script run by Node
 * itself (type stripping, no build) needs to reach a store's TypeScript sources and one
 * shared PostgreSQL or Redis, and to answer command lines. Import it by its `.ts` path.
 * It imports only Node's own modules (and types) statically: before
 * {@link resolveTsSources} ran, nothing else here would resolve.
 * @module
 */
import { registerHooks } from "node:module"
import { createInterface } from "node:readline"
// Type only: erased under type stripping, so nothing resolves before resolveTsSources().
import type { SharedStoreOptions } from "./worker-lines.js"

export type { SharedStoreOptions }

/**
 * Lets `import("./x.js")` load `./x.ts` when there is no `x.js`: package sources import each
 * other as `.js`, which under type stripping only the `.ts` file answers. Call it before the
 * first dynamic import of a source file.
 *
 * @example
 * ```ts
 * resolveTsSources()
 * const { sqlSsoStore } = await import("../../src/sql.js")
 * ```
 */
export function resolveTsSources(): void {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context)
      } catch (error) {
        if (specifier.startsWith(".") && specifier.endsWith(".js")) return nextResolve(`${specifier.slice(0, -3)}.ts`, context)
        throw error
      }
    },
  })
}

/**
 * Connects to the shared store with this process's own connection (a pool of 10 on
 * PostgreSQL, one client on Redis), checks it answers, and builds the store on it.
 *
 * @example
 * ```ts
 * const { store, close } = await openSharedStore(options, {
 *   sql: async (db, tablePrefix) => (await import("../../src/sql.js")).sqlSsoStore(db, { tablePrefix }),
 *   redis: async (client, prefix) => (await import("../../src/redis.js")).redisSsoStore(client, { prefix }),
 * })
 * ```
 */
export async function openSharedStore<Store>(
  options: SharedStoreOptions,
  build: { sql(db: any, tablePrefix: string): Promise<Store>; redis(client: any, prefix: string): Promise<Store> },
): Promise<{ store: Store; close(): Promise<void> }> {
  if (options.backend === "postgres") {
    const { Kysely, PostgresDialect } = await import("kysely")
    const pg = (await import("pg")).default
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: options.url, max: 10 }) }) })
    await db.selectNoFrom((eb) => eb.val(1).as("one")).execute()
    return { store: await build.sql(db, options.prefix), close: () => db.destroy() }
  }
  const { Redis } = await import("ioredis")
  const client = new Redis(options.url, { maxRetriesPerRequest: 1 })
  await client.ping()
  return { store: await build.redis(client, options.prefix), close: async () => void (await client.quit()) }
}

/**
 * Prints `ready`, then answers each line on stdin with the one line `answer` returns
 * (`null`: the line is not a command, no answer), until stdin ends or the line `quit`
 * comes, or, with `once`, after the first answer.
 *
 * @example
 * ```ts
 * await serveLines(async (line) => JSON.stringify(await run(line)))
 * await close()
 * ```
 */
export async function serveLines(answer: (line: string) => Promise<string | null>, options: { once?: boolean } = {}): Promise<void> {
  const lines = createInterface({ input: process.stdin })
  process.stdout.write("ready\n")
  for await (const line of lines) {
    if (line.trim() === "quit") break
    const reply = await answer(line.trim())
    if (reply === null) continue
    process.stdout.write(`${reply}\n`)
    if (options.once) break
  }
  lines.close()
}
