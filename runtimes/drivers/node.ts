// Runs the shared scenarios on Node: `node runtimes/drivers/node.ts '<ScenarioEnv JSON>'`.
// Prints one JSON line: { runtime, version, results }.
import { runScenarios } from "../scenarios.ts"

const results = await runScenarios(JSON.parse(process.argv[2] ?? "{}"))
console.log(JSON.stringify({ runtime: "node", version: process.versions.node, results }))
