import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { Deadlines } from "../../src/lib/config/deadlines.js"

/**
 * `Deadlines` (config/deadlines.ts) replaced a per-call `setTimeout` for `adapterTimeout`.
 * The promise it keeps: a call that has not settled within `ms` fails within 1.25 × `ms`.
 */
const late = () => new DOMException("late", "TimeoutError")
const deadlinesModule = fileURLToPath(new URL("../../src/lib/config/deadlines.ts", import.meta.url))

/** Runs `body` (a module's text, `Deadlines` in scope) in a fresh Node process with nothing else alive. */
function inFreshProcess(body: string): { status: number | null; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), "session-lane-deadlines-"))
  try {
    const file = join(dir, "probe.mts")
    writeFileSync(file, `const { Deadlines } = await import(${JSON.stringify(deadlinesModule)})\n${body}\n`)
    const run = spawnSync(process.execPath, ["--experimental-transform-types", "--no-warnings", file], { encoding: "utf8", timeout: 20_000 })
    return { status: run.status, stdout: run.stdout }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("finding 3: a hung store call in a process with nothing else to do", () => {
  it("fails after adapterTimeout (as the per-call timer did) instead of the process exiting with the call unsettled", () => {
    // Steps: a script, a cron job or a serverless handler awaits a session read; the store's
    // call hangs on something that holds no handle of its own (a pool's wait queue, an
    // unref'd socket, a lock). The old per-call `setTimeout` kept the process alive until
    // the call failed as `AdapterError` (503, logged). The shared interval is `unref`'d:
    // nothing keeps the process alive, so it exits (code 13, "unsettled top-level await")
    // and the caller never gets the timeout — no 503, no log line, no cleanup.
    const run = inFreshProcess(`
      const deadlines = new Deadlines(100)
      try {
        await deadlines.race(new Promise(() => {}), () => new Error("late"))
        console.log("resolved")
      } catch (error) {
        console.log("failed:" + error.message)
      }
    `)
    expect(run.stdout.trim()).toBe("failed:late")
    expect(run.status).toBe(0)
  })
})

describe("deadlines under attack (regression)", () => {
  it("a thenable whose then() throws fails at once, and the interval still stops afterwards", async () => {
    const deadlines = new Deadlines(30)
    const hostile = {
      then() {
        throw new Error("hostile then")
      },
    }
    await expect(deadlines.race(hostile as unknown as PromiseLike<number>, late)).rejects.toThrow("hostile then")
    // The entry it left behind is swept; a later call is still bounded.
    const started = performance.now()
    await expect(deadlines.race(new Promise<never>(() => {}), late)).rejects.toMatchObject({ name: "TimeoutError" })
    expect(performance.now() - started).toBeLessThan(30 * 1.25 + 150)
  })

  it("a thenable that answers twice, or answers and then fails, gives its first outcome only", async () => {
    const deadlines = new Deadlines(50)
    const twice = {
      then(ok: (v: number) => void, fail: (e: unknown) => void) {
        ok(1)
        ok(2)
        fail(new Error("after"))
      },
    }
    await expect(deadlines.race(twice as unknown as PromiseLike<number>, late)).resolves.toBe(1)
  })

  it("calls started late in another call's window are each bounded from their own start", async () => {
    const deadlines = new Deadlines(80)
    const first = deadlines.race(new Promise<never>(() => {}), late).catch(() => performance.now())
    await new Promise((r) => setTimeout(r, 60))
    const secondStart = performance.now()
    const second = deadlines.race(new Promise<never>(() => {}), late).catch(() => performance.now())
    await first
    const secondEnd = await second
    expect(secondEnd - secondStart).toBeGreaterThanOrEqual(79)
    expect(secondEnd - secondStart).toBeLessThan(80 * 1.25 + 150)
  })
})
