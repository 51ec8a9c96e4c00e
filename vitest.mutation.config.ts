/**
 * The tests Stryker runs against each mutant (`stryker.config.mjs`): core's own tests — not
 * e2e, bench or the runtime matrix, which need builds and browsers — or, for a run on one
 * module, the files named in MUTATION_TESTS (comma-separated globs).
 */
import { existsSync, readdirSync, realpathSync, symlinkSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import base from "./vitest.config.ts"

const only = process.env.MUTATION_TESTS?.split(",").map((glob) => glob.trim()).filter(Boolean)

/**
 * Stryker runs the tests in a copy of the repository (`.stryker-tmp/sandbox-*`) and links
 * into it the `node_modules` folders it finds — but only real directories: in a git
 * worktree whose `node_modules` are symlinks it links none. The root's are still found (Node
 * looks up the sandbox's parents and reaches the checkout's), a workspace's own are not:
 * `packages/core/node_modules` holds `@simplewebauthn/server`, so in such a sandbox every
 * passkey request failed to load its provider kind and answered 500, and
 * `@simplewebauthn/browser` resolved to the root's older copy. Link what Stryker skipped.
 */
function linkWorkspaceModules(sandbox: string): void {
  if (basename(dirname(sandbox)) !== ".stryker-tmp") return
  const checkout = dirname(dirname(sandbox))
  for (const folder of ["packages", "examples"]) {
    for (const name of readdirSync(join(checkout, folder))) {
      const original = join(checkout, folder, name, "node_modules")
      const copy = join(sandbox, folder, name, "node_modules")
      if (!existsSync(original) || existsSync(copy) || !existsSync(dirname(copy))) continue
      try {
        symlinkSync(realpathSync(original), copy, "dir")
      } catch (error) {
        // Another test process of the same sandbox linked it first.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
    }
  }
}
linkWorkspaceModules(process.cwd())

// Spread, not mergeConfig: that one concatenates arrays, and the root's `include` would stay.
// Without the root's projects: with them, vitest would run their `include`s (every test,
// and the Redis folder again on Valkey) instead of this one.
const { projects: _projects, ...shared } = base.test ?? {}
export default {
  ...base,
  test: { ...shared, include: only?.length ? only : ["packages/core/test/**/*.test.ts"] },
}
