/**
 * The tests Stryker runs against each mutant (`stryker.config.mjs`): core's own tests — not
 * e2e, bench or the runtime matrix, which need builds and browsers — or, for a run on one
 * module, the files named in MUTATION_TESTS (comma-separated globs).
 */
import base from "./vitest.config.ts"

const only = process.env.MUTATION_TESTS?.split(",").map((glob) => glob.trim()).filter(Boolean)

// Spread, not mergeConfig: that one concatenates arrays, and the root's `include` would stay.
export default {
  ...base,
  test: { ...base.test, include: only?.length ? only : ["packages/core/test/**/*.test.ts"] },
}
