/**
 * The WebAssembly argon2id (the fallback where `@node-rs/argon2` does not load) runs in a
 * worker thread where the runtime has them, so a burst of sign-ins does not stall the event
 * loop (issue 35: session checks' p99 under sign-in bursts). Counted, not timed: while one
 * hash is computed the event loop keeps turning — on the main thread it could not turn at
 * all until the hash was done. Where there are no worker threads (the edge runtimes), the
 * same hash is computed on the main thread, to the same answers.
 */
import { afterEach, describe, expect, it } from "vitest"
import { hashPassword, verifyPassword } from "@portcullis/core/password"

const proc = process as { getBuiltinModule?: unknown }
const original = proc.getBuiltinModule
afterEach(() => {
  proc.getBuiltinModule = original
})

/** Event-loop turns (`setImmediate`) taken while `work` is pending. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0
  let done = false
  const spin = () => {
    if (done) return
    turns++
    setImmediate(spin)
  }
  setImmediate(spin)
  const value = await work()
  done = true
  return { value, turns }
}

describe("argon2id on WebAssembly", () => {
  it("hashes and verifies off the main thread: the event loop keeps turning meanwhile", async () => {
    const { value: stored, turns: hashing } = await turnsDuring(() => hashPassword("correct horse", { implementation: "wasm" }))
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    const { value: ok, turns: verifying } = await turnsDuring(() => verifyPassword("correct horse", stored, { implementation: "wasm" }))
    expect(ok).toBe(true)
    // A 19 MiB, two-pass hash on the main thread leaves the loop no turn until it ends (a
    // few hundred at most while hash-wasm compiles its module the first time); in a worker
    // the loop turns all along — a spawn alone takes thousands of turns.
    expect(hashing).toBeGreaterThan(1_000)
    expect(verifying).toBeGreaterThan(1_000)
    // Interchangeable with the native binding, both ways.
    expect(await verifyPassword("correct horse", stored, { implementation: "native" })).toBe(true)
    expect(await verifyPassword("correct horse", await hashPassword("correct horse", { implementation: "native" }), { implementation: "wasm" })).toBe(true)
    expect(await verifyPassword("wrong horse", stored, { implementation: "wasm" })).toBe(false)
  })

  it("10 hashes at once, each in its worker: all distinct, all verify", async () => {
    const hashes = await Promise.all(Array.from({ length: 10 }, (_, i) => hashPassword(`password-${i}`, { implementation: "wasm", memoryCost: 1024, timeCost: 1 })))
    expect(new Set(hashes).size).toBe(10)
    const checks = await Promise.all(hashes.map((h, i) => verifyPassword(`password-${i}`, h, { implementation: "wasm" })))
    expect(checks.every(Boolean)).toBe(true)
  })

  it("without worker threads (an edge runtime) computes on the main thread, to the same answers", async () => {
    const stored = await hashPassword("edge password", { implementation: "wasm", memoryCost: 1024 })
    proc.getBuiltinModule = undefined
    // The first main-thread use compiles hash-wasm's module (asynchronously): done before counting.
    await verifyPassword("edge password", stored, { implementation: "wasm" })
    const { value: ok, turns } = await turnsDuring(() => verifyPassword("edge password", stored, { implementation: "wasm" }))
    expect(ok).toBe(true)
    // No worker was spawned (a spawn alone takes thousands of turns).
    expect(turns).toBeLessThan(1_000)
    const made = await hashPassword("edge password", { implementation: "wasm", memoryCost: 1024 })
    proc.getBuiltinModule = original
    expect(await verifyPassword("edge password", made, { implementation: "native" })).toBe(true)
  })
})
