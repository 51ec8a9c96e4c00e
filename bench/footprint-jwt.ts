/**
 * `node --expose-gc bench/footprint-jwt.ts`: the memory 100,000 cached JWT sessions take in
 * a Node process running the built core. Portcullis keeps at most 10,000 verified tokens
 * per configuration, so ten configurations (one secret, ten config objects: ten runtimes)
 * each check 10,000 distinct tokens; the process's RSS and heap after a full GC, against
 * the same process before the tokens existed, is the figure. The tokens are dropped by
 * this script before the last measure: what remains is what the caches hold (each token
 * string included, as a server's caches hold the cookies it was sent). RSS is the figure:
 * the cookie strings end up outside V8's heap (V8 externalises them on the way through the
 * Web `Headers`), so the heap alone undercounts. Prints one JSON line.
 */
import { getHeapStatistics } from "node:v8"
import { Auth } from "@portcullis/core"
import { portcullisConfig } from "./configs.ts"
import { mintJwtCookies } from "./sessions.ts"

const CONFIGS = 10
const PER_CONFIG = 10_000
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error("run with --expose-gc")

const check = async (config: ReturnType<typeof portcullisConfig>, cookie: string) => {
  const response = await Auth(new Request("http://127.0.0.1:3000/auth/session", { headers: { cookie } }), config)
  const body = await response.text()
  if (!body.includes("bench@example.com")) throw new Error(`a token did not check: ${body.slice(0, 100)}`)
}

const configs = Array.from({ length: CONFIGS }, () => portcullisConfig({ reissue: false }))
// Each runtime built and warm (origin worked out, code optimised) before the first measure.
const warm = await mintJwtCookies(1)
for (const config of configs) for (let i = 0; i < 3; i++) await check(config, warm[0]!)
const settle = () => {
  for (let i = 0; i < 4; i++) gc()
  const { rss, external } = process.memoryUsage()
  return { rss, heapUsed: getHeapStatistics().used_heap_size, external }
}
const before = settle()
// Minted and checked 10,000 at a time, then dropped: the minting's garbage stays small, so
// the RSS the process keeps is mostly what the caches hold.
for (const config of configs) {
  const cookies = await mintJwtCookies(PER_CONFIG)
  for (const cookie of cookies) await check(config, cookie)
}
const after = settle()
// `configs` is read here on purpose: a config object nothing refers to any more takes its
// runtime, and its caches, with it (core keeps runtimes in a WeakMap), before `settle()`.
process.stdout.write(`${JSON.stringify({ sessions: CONFIGS * PER_CONFIG, configs: configs.length, rss: after.rss - before.rss, heap: after.heapUsed - before.heapUsed, external: after.external - before.external })}\n`)
