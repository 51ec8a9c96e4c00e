/**
 * Runs the compiler over `types.test-d.ts`: the admin console's server functions are typed
 * from the configuration, and a call that cannot work fails to compile.
 */
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const project = fileURLToPath(new URL("./tsconfig.json", import.meta.url))
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

describe("the types of the admin console", () => {
  it("compile where they should and refuse mistakes (types.test-d.ts)", async () => {
    const output = await new Promise<string>((resolve) => {
      execFile(process.execPath, [tsc, "-p", project], { timeout: 240_000 }, (error, stdout, stderr) => resolve(error ? `${stdout}${stderr}` || String(error) : ""))
    })
    expect(output).toBe("")
  }, 240_000)
})
