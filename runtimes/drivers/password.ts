// Runs the password and two-factor scenarios on Bun, Deno or Node:
// `bun runtimes/drivers/password.ts`, `deno run --allow-read --allow-env --allow-ffi runtimes/drivers/password.ts`.
// Prints one JSON line: { runtime, version, results }.
import { runPasswordScenarios } from "../password-scenarios.ts"

declare const Bun: { version: string } | undefined
declare const Deno: { version: { deno: string } } | undefined

const runtime = typeof Bun !== "undefined" ? { runtime: "bun", version: Bun.version }
  : typeof Deno !== "undefined" ? { runtime: "deno", version: Deno.version.deno }
  : { runtime: "node", version: process.versions.node }
const results = await runPasswordScenarios()
console.log(JSON.stringify({ ...runtime, results }))
