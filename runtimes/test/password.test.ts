/**
 * docs/passwords.md says `@portcullis/core/password` runs the native argon2 binding on Node,
 * Bun and Deno, and that its WebAssembly build reads the same hashes: each runtime runs the
 * password and two-factor scenarios (`runtimes/password-scenarios.ts`) in its own process.
 */
import { fileURLToPath } from "node:url"
import { beforeAll, expect, it } from "vitest"
import { passwordScenarioNames } from "../password-scenarios.ts"
import { describeWhere, locate, runDriver, type DriverReport } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/password.ts", import.meta.url))
const runtimes = [
  { title: "Node", available: { path: process.execPath }, args: [driver] },
  { title: "Bun", available: locate({ pkg: "@oven/bun-linux-x64", file: "bin/bun" }), args: [driver] },
  // --allow-ffi: Deno loads npm native addons (the argon2 binding) only with it.
  { title: "Deno", available: locate({ pkg: "@deno/linux-x64-glibc", file: "deno" }), args: ["run", "--no-lock", "--allow-read", "--allow-env", "--allow-ffi", driver] },
]

for (const { title, available, args } of runtimes) {
  describeWhere(available, `${title} hashes passwords with argon2id and checks TOTP codes`, () => {
    let report: DriverReport
    beforeAll(async () => {
      report = await runDriver("path" in available ? available.path : title.toLowerCase(), args, {})
    }, 60_000)
    it("reports every scenario, in order", () => {
      expect(report.results.map((r) => r.name)).toEqual([...passwordScenarioNames])
    })
    it.each(passwordScenarioNames)("%s", (name) => {
      const result = report.results.find((r) => r.name === name)
      expect(result?.error).toBeUndefined()
      expect(result?.ok).toBe(true)
    })
  })
}
