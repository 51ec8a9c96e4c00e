/**
 * SCAN over every key a client can see: one server's keyspace, or on a cluster each
 * master's in turn (a SCAN sent to a cluster reaches one node and lists only its keys).
 * @module
 */
import type { Redis } from "ioredis"
import { isCluster, type RedisClient } from "./client.js"

/**
 * The keys matching `pattern`, in batches; a key may come twice (SCAN's guarantee is
 * "at least once"), so callers that count use a set. `pattern` is a SCAN `MATCH` glob, with
 * any `keyPrefix` of the client already in it (SCAN does not add it).
 *
 * @example
 * ```ts
 * for await (const keys of scanKeys(redis, "portcullis:session:*")) total += keys.length
 * ```
 */
export async function* scanKeys(client: RedisClient, pattern: string): AsyncGenerator<string[]> {
  const nodes: Redis[] = isCluster(client) ? client.nodes("master") : [client]
  for (const node of nodes) {
    for await (const batch of node.scanStream({ match: pattern, count: 1000 })) {
      if ((batch as string[]).length) yield batch as string[]
    }
  }
}

/** `text` with SCAN's glob characters escaped, so a prefix matches only itself. */
export function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&")
}
