/**
 * `@portcullis/redis-adapter/scripts`: running Lua scripts the way every Portcullis Redis
 * store (the extensions' included) does — by their SHA-1 with EVALSHA, sending the source
 * whole only to a server that does not know it yet (restarted, failed over, a new Cluster
 * node). Imports ioredis's types only, never ioredis itself: the store passes its client.
 *
 * @example
 * ```ts
 * import { runScript, script } from "@portcullis/redis-adapter/scripts"
 *
 * // Built once, at module level: a script is a constant, its SHA-1 computed here.
 * const TAKE_ONCE = script(`
 * if redis.call("HGET", KEYS[1], "used") == "1" then return 0 end
 * redis.call("HSET", KEYS[1], "used", "1")
 * return 1
 * `)
 *
 * const won = (await runScript(client, TAKE_ONCE, [`my-extension:{${id}}:ticket`], [])) === 1
 * ```
 * @module
 */
import { createHash } from "node:crypto"
import type { Cluster, Redis } from "ioredis"

/** A Lua script and its SHA-1 (hex), for EVALSHA. Build one with {@link script}. */
export interface Script {
  readonly source: string
  readonly sha: string
}

/**
 * The {@link Script} of `source`, its SHA-1 computed once.
 *
 * @example
 * ```ts
 * import { script } from "@portcullis/redis-adapter/scripts"
 *
 * const PING = script(`return redis.call("PING")`)
 * ```
 */
export function script(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") }
}

/**
 * Runs `s` on `client` with `keys` and `args` and returns Redis's answer: EVALSHA first,
 * then, when the server answers NOSCRIPT, EVAL with the source (which also loads it). On
 * Cluster every key must share one hash tag, as for any script. Other errors are thrown as
 * they are.
 *
 * @example
 * ```ts
 * import { runScript, script } from "@portcullis/redis-adapter/scripts"
 *
 * const GET = script(`return redis.call("GET", KEYS[1])`)
 * const value = await runScript(client, GET, ["my-extension:key"], [])
 * ```
 */
export async function runScript(client: Redis | Cluster, s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await client.evalsha(s.sha, keys.length, ...keys, ...args)
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error
    return client.eval(s.source, keys.length, ...keys, ...args)
  }
}
