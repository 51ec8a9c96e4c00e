/** Runs the type test (`types.test-d.ts`) through the compiler: a wrong type fails the suite. */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

describe("the account center's types", () => {
  it("compile as the type test says (inferred id and server functions, the facet's shapes)", () => {
    const project = fileURLToPath(new URL("./tsconfig.json", import.meta.url))
    let output = ""
    try {
      execFileSync(process.execPath, [fileURLToPath(new URL("../../../node_modules/typescript/bin/tsc", import.meta.url)), "-p", project], { encoding: "utf8" })
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error)
    }
    expect(output).toBe("")
  }, 120_000)
})
