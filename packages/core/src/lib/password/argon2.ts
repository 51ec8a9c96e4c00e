/**
 * Argon2id through the fastest implementation the runtime can load: the native
 * `@node-rs/argon2` (prebuilt for Node, Bun and Deno; its work runs off the event loop),
 * else `hash-wasm`'s WebAssembly build — in a worker thread where the runtime has them, so
 * it does not stall the event loop either; on the main thread only where it has none. Both read and write the same PHC strings, so a hash
 * made by one verifies with the other (`test/password/argon2.test.ts` checks both ways).
 * @module
 */
import { b64NoPad, parsePhc } from "./phc.js"

/** Argon2id cost. Defaults are OWASP's first recommendation: 19 MiB, 2 passes, 1 lane. */
export interface Argon2Params {
  /** Memory in KiB (`m=`). Default 19456. */
  memoryCost: number
  /** Passes over memory (`t=`). Default 2. */
  timeCost: number
  /** Lanes (`p=`). Default 1. */
  parallelism: number
}

export const OWASP_ARGON2ID: Readonly<Argon2Params> = Object.freeze({ memoryCost: 19_456, timeCost: 2, parallelism: 1 })

/**
 * Bounds on parameters read from a stored hash, so a planted hash can't exhaust memory or
 * time: at most 256 MiB, 10 passes and 16 lanes — an order of magnitude above OWASP's
 * recommendations (19 MiB × 2) — and at most 1 GiB·pass of work in all.
 */
export const ARGON2_LIMITS = { maxMemoryCost: 1 << 18, maxTimeCost: 10, maxParallelism: 16, maxWork: 1 << 20 } as const

/** One implementation of argon2id hashing and verification. */
export interface Argon2Backend {
  name: "native" | "wasm"
  hash(password: string, salt: Uint8Array, params: Argon2Params): Promise<string>
  verify(phc: string, password: string): Promise<boolean>
}

interface NativeModule {
  hash(password: string, options: { memoryCost: number; timeCost: number; parallelism: number; outputLen: number; algorithm: number; salt: Uint8Array }): Promise<string>
  verify(hashed: string, password: string): Promise<boolean>
}

/**
 * The native binding if it loads here, else WebAssembly. `prefer: "wasm"` forces the
 * portable one (tests compare the two). No module-level cache: ESM caches the imports.
 */
export async function argon2Backend(prefer?: "native" | "wasm"): Promise<Argon2Backend> {
  if (prefer !== "wasm") {
    const native = await loadNative()
    if (native) return nativeBackend(native)
    if (prefer === "native") throw new Error("@node-rs/argon2 does not load on this runtime")
  }
  return wasmBackend()
}

/**
 * The native binding through `require`, reached at run time (`process.getBuiltinModule`):
 * no `import` names it, so bundlers for edge runtimes neither try to include a native addon
 * nor leave a dynamic `import()` of a computed name in the bundle, which workerd refuses to
 * load. Where there is no `getBuiltinModule` (Workers, the edge runtime) or the binding does
 * not load, WebAssembly takes over.
 */
async function loadNative(): Promise<NativeModule | undefined> {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  if (typeof getBuiltin !== "function") return undefined
  try {
    const { createRequire } = getBuiltin("node:module") as { createRequire(from: string): (id: string) => unknown }
    const mod = createRequire(import.meta.url)("@node-rs/argon2") as Partial<NativeModule> & { default?: Partial<NativeModule> }
    const api = typeof mod.hash === "function" ? mod : mod.default
    return api && typeof api.hash === "function" && typeof api.verify === "function" ? (api as NativeModule) : undefined
  } catch {
    return undefined
  }
}

function nativeBackend(native: NativeModule): Argon2Backend {
  return {
    name: "native",
    hash: (password, salt, p) =>
      // algorithm 2 is Argon2id in the binding's const enum.
      native.hash(password, { memoryCost: p.memoryCost, timeCost: p.timeCost, parallelism: p.parallelism, outputLen: 32, algorithm: 2, salt }),
    verify: (phc, password) => native.verify(phc, password),
  }
}

async function wasmBackend(): Promise<Argon2Backend> {
  const { argon2id, argon2Verify } = await import("hash-wasm")
  const phcOf = (salt: Uint8Array, p: Argon2Params, raw: Uint8Array) =>
    `$argon2id$v=19$m=${p.memoryCost},t=${p.timeCost},p=${p.parallelism}$${b64NoPad(salt)}$${b64NoPad(raw)}`
  return {
    name: "wasm",
    async hash(password, salt, p) {
      const args = { password, salt, iterations: p.timeCost, memorySize: p.memoryCost, parallelism: p.parallelism, hashLength: 32 }
      const offThread = inWorker<Uint8Array>({ op: "hash", args })
      const raw = offThread ? await offThread : await argon2id({ ...args, outputType: "binary" })
      return phcOf(salt, p, raw)
    },
    verify: (phc, password) => inWorker<boolean>({ op: "verify", args: { password, hash: phc } }) ?? argon2Verify({ password, hash: phc }),
  }
}

/**
 * What the WebAssembly argon2id runs in a worker thread: `hash-wasm` computes a whole hash
 * (19 MiB, two passes: tens of milliseconds) in one synchronous stretch, which on the main
 * thread would stall every other request for that long — a burst of sign-ins would hold up
 * every session check. CommonJS, evaluated (`eval: true`), so no file has to ship beside
 * the bundle; `hash-wasm` is loaded from the URL the caller resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule("worker_threads")
import(workerData.module).then(async (wasm) => {
  const { op, args } = workerData.task
  const result = op === "hash" ? await wasm.argon2id({ ...args, outputType: "binary" }) : await wasm.argon2Verify(args)
  parentPort.postMessage({ ok: true, result })
}).catch((error) => parentPort.postMessage({ ok: false, message: String((error && error.message) || error) }))
`

type WorkerTask = { op: "hash"; args: Record<string, unknown> } | { op: "verify"; args: { password: string; hash: string } }

/**
 * Runs one WebAssembly argon2 task in a worker thread of its own, where the runtime has
 * them (Node, Bun, Deno: `process.getBuiltinModule("node:worker_threads")`); `undefined`
 * elsewhere (the edge runtimes), where it runs on the main thread as before. One worker
 * per task, ended when it answers: no pool is kept in a module (state belongs to the
 * objects a configuration builds), and what a spawn costs is the new thread's time, not
 * the event loop's. A failure to start or a crash rejects, as a failed hash does.
 */
function inWorker<T>(task: WorkerTask): Promise<T> | undefined {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  const resolveModule = (import.meta as { resolve?: (specifier: string) => string }).resolve
  if (typeof getBuiltin !== "function" || typeof resolveModule !== "function") return undefined
  let Worker: WorkerConstructor
  let module: string
  try {
    Worker = (getBuiltin("node:worker_threads") as { Worker: WorkerConstructor }).Worker
    module = resolveModule("hash-wasm")
  } catch {
    return undefined
  }
  if (typeof Worker !== "function") return undefined
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, task } })
    worker.once("message", (reply: { ok: boolean; result?: T; message?: string }) => {
      if (reply.ok) resolve(reply.result as T)
      else reject(new Error(reply.message))
      void worker.terminate()
    })
    worker.once("error", reject)
    // After an answer this settles nothing: a promise settles once.
    worker.once("exit", (code: number) => reject(new Error(`the argon2 worker exited (code ${code}) without an answer`)))
  })
}

interface WorkerLike {
  once(event: string, listener: (value: never) => void): void
  terminate(): Promise<number>
}
type WorkerConstructor = new (source: string, options: { eval: boolean; workerData: unknown }) => WorkerLike

/** The cost a stored argon2 hash was made with, if it is one and within {@link ARGON2_LIMITS}. */
export function argon2ParamsOf(phc: string): (Argon2Params & { variant: string; version: number }) | undefined {
  const parsed = parsePhc(phc)
  if (!parsed || !/^argon2(id|i|d)$/.test(parsed.id)) return undefined
  const { m, t, p } = parsed.params
  if (!m || !t || !p || m > ARGON2_LIMITS.maxMemoryCost || t > ARGON2_LIMITS.maxTimeCost || p > ARGON2_LIMITS.maxParallelism) return undefined
  if (m * t > ARGON2_LIMITS.maxWork) return undefined
  if (m < 8 * p) return undefined
  return { variant: parsed.id, version: parsed.version ?? 16, memoryCost: m, timeCost: t, parallelism: p }
}
