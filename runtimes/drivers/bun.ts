// Runs the shared scenarios on Bun: `bun runtimes/drivers/bun.ts '<ScenarioEnv JSON>'`.
// Prints one JSON line: { runtime, version, results }.
import { runScenarios } from "../scenarios.ts"

declare const Bun: { version: string; argv: string[] }

const results = await runScenarios(JSON.parse(Bun.argv[2] ?? "{}"))
console.log(JSON.stringify({ runtime: "bun", version: Bun.version, results }))
