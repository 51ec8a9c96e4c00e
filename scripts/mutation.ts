// `npm run mutation [group ...]`: mutation testing of the security-critical modules (issue 36),
// one group at a time.
//
// A group (`mutation/groups/<name>.json`) names the modules it mutates and the tests that
// cover them: running a module's own tests, not the whole suite, per mutant is what makes a
// run take minutes on 2 cores. Each group keeps its incremental result in
// `mutation/incremental/<name>.json` (committed): a re-run tests only the mutants whose code
// or covering tests changed since, so in CI only what a change touched runs.
//
// The bar is per module, not per run: every mutated file must score at least 90 %
// (killed / (killed + survived + no coverage); mutants that do not compile are dropped by the
// TypeScript checker and equivalent ones are marked `// Stryker disable … : <why>` in the
// source). Below it this exits 1 naming the file and its surviving mutants.
//
// A group whose modules and tests are byte for byte those of its recorded run is not run
// again: its recorded results are its results (Stryker's incremental mode would re-test
// nothing, after a dry run of the group's tests). So CI, on a fresh clone, runs only the
// groups a change touched. `--force` runs every selected group regardless.
//
//   npm run mutation                 # every group
//   npm run mutation -- csrf jwe     # the named groups
//   npm run mutation -- --force jwe  # run even if unchanged
//   npm run mutation -- --enforced   # only the groups marked `"enforced": true` (CI)
//
// A group is marked enforced once every module of it reached the bar: from then on CI holds
// it there. Groups still on their way are listed by `--enforced` as not yet held.
import { spawnSync } from "node:child_process"
import { existsSync, globSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, join, resolve } from "node:path"

const BAR = 90
const groupsDir = "mutation/groups"
const reports = "reports/mutation"

interface Group {
  /** What the group covers, one line. */
  description: string
  /** Files (or globs) to mutate, relative to the repository root. */
  mutate: string[]
  /** Test files (or globs) run against each mutant. */
  tests: string[]
  /** Every module reached the bar once; CI (`--enforced`) keeps it there. */
  enforced?: boolean
}

interface MutantResult {
  id: string
  mutatorName: string
  replacement?: string
  status: string
  location: { start: { line: number; column: number } }
  /** Ids of the tests that killed it (Stryker stops at the first, so usually one). */
  killedBy?: string[]
}

interface Report {
  files: Record<string, { source: string; mutants: MutantResult[] }>
  testFiles?: Record<string, { source?: string; tests?: { id: string }[] }>
}

/** The files a list of globs names, `!`-prefixed ones taken out. */
function expand(globs: string[]): string[] {
  const out = new Set(globs.filter((glob) => !glob.startsWith("!")).flatMap((glob) => globSync(glob)))
  for (const glob of globs.filter((glob) => glob.startsWith("!"))) for (const file of globSync(glob.slice(1))) out.delete(file)
  return [...out].sort()
}

/**
 * Whether `recorded` is a run of exactly these modules and tests, as they are now. (A module
 * with no mutant at all — types only — is not recorded by Stryker, so it reads as changed:
 * leave such files out of a group.)
 *
 * Stryker keeps, in its incremental file, test files an earlier run had and the group no
 * longer lists. Those do not make the record stale as long as no kill rests on them alone:
 * every killed mutant must have been killed by a test of a file the group still lists (else
 * dropping that file may have turned the kill into a survivor, and the group runs again).
 */
function unchanged(group: Group, recorded: Report): boolean {
  const mutated = expand(group.mutate)
  const tests = new Set(expand(group.tests))
  const seen = recorded.testFiles ?? {}
  const current = (file: string, source: string | undefined) => source === readFileSync(file, "utf8")
  if (mutated.length !== Object.keys(recorded.files).length || !mutated.every((file) => recorded.files[file] !== undefined && current(file, recorded.files[file].source))) return false
  if (![...tests].every((file) => seen[file] !== undefined && current(file, seen[file].source))) return false
  const fileOfTest = new Map(Object.entries(seen).flatMap(([file, { tests: listed = [] }]) => listed.map(({ id }) => [id, file] as const)))
  return Object.values(recorded.files).every(({ mutants }) =>
    mutants.every((mutant) => mutant.status !== "Killed" || (mutant.killedBy ?? []).some((id) => tests.has(fileOfTest.get(id) ?? ""))),
  )
}

const force = process.argv.includes("--force")
const enforcedOnly = process.argv.includes("--enforced")
const named = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))
const all = readdirSync(groupsDir).filter((file) => file.endsWith(".json")).map((file) => basename(file, ".json")).sort()
const unknown = named.filter((name) => !all.includes(name))
if (unknown.length) {
  console.error(`mutation: no group ${unknown.join(", ")} (groups: ${all.join(", ")})`)
  process.exit(2)
}

mkdirSync(reports, { recursive: true })
mkdirSync("mutation/incremental", { recursive: true })
const failures: string[] = []
const rows: string[] = []

for (const name of named.length ? named : all) {
  const group = JSON.parse(readFileSync(join(groupsDir, `${name}.json`), "utf8")) as Group
  if (enforcedOnly && !group.enforced) {
    console.log(`\n== mutation: ${name} — not yet at the bar, so not held by CI (run it by name)`)
    continue
  }
  const json = join(reports, `${name}.json`)
  const incremental = `mutation/incremental/${name}.json`
  if (!force && group.tests.length && existsSync(incremental) && unchanged(group, JSON.parse(readFileSync(incremental, "utf8")) as Report)) {
    console.log(`\n== mutation: ${name} — modules and tests unchanged since its recorded run; its results stand`)
    writeFileSync(json, readFileSync(incremental))
    score(json)
    continue
  }
  // A config per group that extends the shared one: Stryker takes nested options only from a file.
  const config = join(reports, `${name}.stryker.mjs`)
  writeFileSync(
    config,
    `import base from ${JSON.stringify(resolve("stryker.config.mjs"))}\n` +
      `export default { ...base, mutate: ${JSON.stringify(group.mutate)},\n` +
      `  incrementalFile: ${JSON.stringify(incremental)},\n` +
      `  reporters: ["progress", "json", "html"],\n` +
      `  jsonReporter: { fileName: ${JSON.stringify(json)} },\n` +
      `  htmlReporter: { fileName: ${JSON.stringify(join(reports, `${name}.html`))} },\n` +
      // The per-module check below is the bar; Stryker's own is for the whole run.
      `  thresholds: { ...base.thresholds, break: null } }\n`,
  )
  console.log(`\n== mutation: ${name} (${group.description})`)
  const run = spawnSync("npx", ["stryker", "run", config], { stdio: "inherit", env: { ...process.env, MUTATION_TESTS: group.tests.join(",") } })
  if (run.status !== 0 || !existsSync(json)) {
    failures.push(`${name}: stryker exited ${run.status}`)
    continue
  }
  score(json)
}

/** Adds a report's per-module scores to the table, and each module under the bar to the failures. */
function score(json: string): void {
  const report = JSON.parse(readFileSync(json, "utf8")) as Report
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const count = (...statuses: string[]) => mutants.filter((mutant) => statuses.includes(mutant.status)).length
    const detected = count("Killed", "Timeout")
    const undetected = mutants.filter((mutant) => mutant.status === "Survived" || mutant.status === "NoCoverage")
    const valid = detected + undetected.length
    const score = valid === 0 ? 100 : (100 * detected) / valid
    rows.push(`${score.toFixed(2).padStart(6)} %  ${String(valid).padStart(4)} mutants  ${String(count("Ignored")).padStart(3)} equivalent  ${file}`)
    if (score < BAR) {
      const listed = undetected.map((mutant) => `    ${file}:${mutant.location.start.line}:${mutant.location.start.column} ${mutant.mutatorName} ${mutant.status}${mutant.replacement ? ` → ${mutant.replacement.split("\n")[0].slice(0, 80)}` : ""}`)
      failures.push(`${file}: ${score.toFixed(2)} % < ${BAR} %\n${listed.join("\n")}`)
    }
  }
}

console.log(`\n== mutation scores (bar: ${BAR} % per module)\n${rows.join("\n")}`)
if (failures.length) {
  console.error(`\nmutation: below the bar or not run:\n${failures.join("\n")}`)
  process.exit(1)
}
