import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const fixtures = join(import.meta.dirname, "fixtures", "components")
const svelteCheck = join(import.meta.dirname, "..", "..", "..", "node_modules", "svelte-check", "bin", "svelte-check")

/** svelte-check's machine output for the fixture folder: its diagnostics and the COMPLETED line. */
function check(): { errors: string[]; completed: string } {
  const run = spawnSync(process.execPath, [svelteCheck, "--workspace", fixtures, "--tsconfig", join(fixtures, "tsconfig.json"), "--output", "machine"], { encoding: "utf8" })
  const lines = run.stdout.split("\n")
  return { errors: lines.filter((l) => / (ERROR|WARNING) /.test(l)), completed: lines.find((l) => l.includes(" COMPLETED ")) ?? run.stderr }
}

describe("SvelteKit components' types (svelte-check on consumers)", () => {
  it("accept Auth.js's named slots (submitButton, email, credentials) and Svelte 5 snippets, inline or as props", () => {
    const { errors, completed } = check()
    expect(errors).toEqual([])
    // Both consumers were checked, not skipped.
    expect(completed).toMatch(/COMPLETED \d+ FILES 0 ERRORS 0 WARNINGS/)
  }, 60_000)
})
