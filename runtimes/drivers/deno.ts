// Runs the shared scenarios on Deno: `deno run --allow-net --allow-env --allow-read
// runtimes/drivers/deno.ts '<ScenarioEnv JSON>'`. Prints one JSON line: { runtime, version, results }.
import { runScenarios } from "../scenarios.ts"

declare const Deno: { version: { deno: string }; args: string[] }

const results = await runScenarios(JSON.parse(Deno.args[0] ?? "{}"))
console.log(JSON.stringify({ runtime: "deno", version: Deno.version.deno, results }))
