/**
 * The shared scenarios on Node, in a Node process of its own (the one running the tests,
 * `scripts/node24`'s Node 24), the same way the other runtimes run them.
 */
import { fileURLToPath } from "node:url"
import { describeRuntime, runDriver } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/node.ts", import.meta.url))

describeRuntime("Node runs the shared scenarios", { path: process.execPath }, (env) => runDriver(process.execPath, [driver], env))
