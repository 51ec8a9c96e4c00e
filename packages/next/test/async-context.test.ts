/**
 * Issue 18: `@portcullis/next` tells server calls (`auth()`, the actions) from browser ones
 * with an `AsyncLocalStorage` it does not import — Next.js puts the class on `globalThis` in
 * its edge and Node runtimes; elsewhere Node, Bun and Deno hand it out through
 * `process.getBuiltinModule` — so an edge bundle has no `node:async_hooks` import
 * (`runtimes/test/next-edge.test.ts`). Each case loads the module afresh under the globals
 * it sets.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { afterEach, describe, expect, it, vi } from "vitest"

afterEach(() => {
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
  vi.resetModules()
})

const load = () => import("../src/lib/config.js")

describe("where @portcullis/next finds AsyncLocalStorage", () => {
  it("takes the class Next.js puts on globalThis, and asks Node for nothing", async () => {
    const made: unknown[] = []
    class NextsStorage<T> extends AsyncLocalStorage<T> {
      constructor() {
        super()
        made.push(this)
      }
    }
    vi.stubGlobal("AsyncLocalStorage", NextsStorage)
    const lookup = vi.spyOn(process, "getBuiltinModule")
    const { onServer } = await load()
    expect(await onServer(async () => "ran")).toBe("ran")
    expect(made).toHaveLength(1)
    expect(lookup).not.toHaveBeenCalled()
  })

  it("falls back to process.getBuiltinModule outside Next.js", async () => {
    vi.stubGlobal("AsyncLocalStorage", undefined)
    const lookup = vi.spyOn(process, "getBuiltinModule")
    const { onServer } = await load()
    expect(await onServer(async () => "ran")).toBe("ran")
    expect(lookup).toHaveBeenCalledWith("node:async_hooks")
  })

  it("refuses server-side session reads loudly on a runtime with neither, instead of shaping them for the browser", async () => {
    vi.stubGlobal("AsyncLocalStorage", undefined)
    vi.spyOn(process, "getBuiltinModule").mockReturnValue(undefined as never)
    const { onServer } = await load()
    await expect(onServer(async () => "ran")).rejects.toThrow(/needs AsyncLocalStorage/)
  })
})
