// Runs the whole test suite once and ends with a plain summary line
// ("vitest: N passed, N failed, N skipped") that CI tooling reads.
import { spawnSync } from "node:child_process"
import { mkdirSync, readFileSync } from "node:fs"

mkdirSync("test-results", { recursive: true })
const report = "test-results/vitest.json"
const args = ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)]
const run = spawnSync("npx", args, { stdio: "inherit" })

let summary = { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, numTotalTests: 0 }
try {
  summary = JSON.parse(readFileSync(report, "utf8"))
} catch {
  console.error("scripts/test.ts: vitest wrote no report")
}
const skipped = summary.numPendingTests + summary.numTodoTests
console.log(`\nvitest: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed, ${skipped} skipped`)
if (summary.numTotalTests === 0) {
  console.error("scripts/test.ts: no test ran")
  process.exit(1)
}
process.exit(run.status ?? 1)
