/**
 * Issue 20, part 1: no user enumeration through timing. Checking a password for a user who
 * doesn't exist runs the same argon2id work, at the same cost, as checking a real user's —
 * shown by counting the hash computations (never by timing).
 */
import { describe, expect, it, vi } from "vitest"

const calls = vi.hoisted(() => [] as { iterations: number; memorySize: number; parallelism: number }[])

vi.mock("hash-wasm", async (importOriginal) => {
  const real = await importOriginal<typeof import("hash-wasm")>()
  return {
    ...real,
    argon2id: (options: Parameters<typeof real.argon2id>[0]) => {
      calls.push({ iterations: options.iterations, memorySize: options.memorySize, parallelism: options.parallelism })
      return real.argon2id(options)
    },
    argon2Verify: (options: Parameters<typeof real.argon2Verify>[0]) => {
      const [, , , params] = options.hash.split("$")
      const p = Object.fromEntries(params!.split(",").map((kv) => kv.split("=")))
      calls.push({ iterations: Number(p.t), memorySize: Number(p.m), parallelism: Number(p.p) })
      return real.argon2Verify(options)
    },
  }
})

const { hashPassword, verifyPassword } = await import("@portcullis/core/password")

describe("verifyPassword for an unknown user", () => {
  it("computes one argon2id hash at the configured cost, as a known user's check does", async () => {
    const cost = { implementation: "wasm" as const, memoryCost: 2048, timeCost: 3 }
    const stored = await hashPassword("real password", cost)
    calls.length = 0

    expect(await verifyPassword("guess", stored, cost)).toBe(false)
    const known = calls.splice(0)
    expect(await verifyPassword("guess", undefined, cost)).toBe(false)
    const unknown = calls.splice(0)
    expect(await verifyPassword("", null, cost)).toBe(false)
    const empty = calls.splice(0)
    expect(await verifyPassword("a".repeat(5000), undefined, cost)).toBe(false)
    const long = calls.splice(0)

    const expected = [{ iterations: 3, memorySize: 2048, parallelism: 1 }]
    expect(known).toEqual(expected)
    expect(unknown).toEqual(expected)
    expect(empty).toEqual(expected)
    expect(long).toEqual(expected)
  })
})
