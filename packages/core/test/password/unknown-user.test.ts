/**
 * Issue 20, part 1: no user enumeration through timing. Checking a password for a user who
 * doesn't exist runs the same argon2id work, at the same cost, as checking a real user's —
 * shown by counting the hash computations (never by timing).
 */
import { afterEach, describe, expect, it, vi } from "vitest"

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

// Where the runtime has worker threads the WebAssembly hash runs in one (issue 35), out of
// the mock's sight: the tasks handed to the workers are counted instead, the same way.
const proc = process as { getBuiltinModule?: (id: string) => unknown }
const getBuiltin = proc.getBuiltinModule!.bind(process)
type Task = { op: "hash"; args: { iterations: number; memorySize: number; parallelism: number } } | { op: "verify"; args: { hash: string } }
function countWorkerTasks(on: boolean) {
  proc.getBuiltinModule = !on ? undefined : (id: string) => {
    const real = getBuiltin(id)
    if (id !== "node:worker_threads") return real
    const { Worker } = real as { Worker: new (source: string, options: { workerData: { task: Task } }) => unknown }
    return {
      ...(real as object),
      Worker: class extends Worker {
        constructor(source: string, options: { workerData: { task: Task } }) {
          const { task } = options.workerData
          if (task.op === "hash") calls.push({ iterations: task.args.iterations, memorySize: task.args.memorySize, parallelism: task.args.parallelism })
          else {
            const p = Object.fromEntries(task.args.hash.split("$")[3]!.split(",").map((kv) => kv.split("=")))
            calls.push({ iterations: Number(p.t), memorySize: Number(p.m), parallelism: Number(p.p) })
          }
          super(source, options)
        }
      },
    }
  }
}

describe.each([["in a worker thread", true], ["on the main thread (no workers: an edge runtime)", false]])("verifyPassword for an unknown user, hashing %s", (_label, workers) => {
  afterEach(() => {
    proc.getBuiltinModule = getBuiltin
  })

  it("computes one argon2id hash at the configured cost, as a known user's check does", async () => {
    countWorkerTasks(workers)
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
