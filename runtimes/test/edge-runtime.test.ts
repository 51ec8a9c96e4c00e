/**
 * The shared scenarios in Vercel's edge runtime (the pinned `edge-runtime` package: the
 * Web-API-only VM Next.js middleware and edge routes run in): the driver is bundled as a
 * script with the `edge-light` conditions and evaluated by `EdgeRuntime`, which then
 * gets a fetch event.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { EdgeRuntime } from "edge-runtime"
import { bundleForEdge } from "../bundle.ts"
import type { DriverReport } from "./support.ts"
import { describeRuntime, locate } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/edge-runtime.ts", import.meta.url))
const packageVersion = (name: string) => (JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${name}/package.json`), "utf8")) as { version: string }).version

describeRuntime("edge-runtime runs the shared scenarios as an edge function", locate({ pkg: "edge-runtime", file: "package.json" }), async (env) => {
  const bundle = await bundleForEdge({ file: driver }, "edge-light")
  if (bundle.nodeImports.length) throw new Error(`the edge bundle imports Node built-ins: ${JSON.stringify(bundle.nodeImports)}`)
  const runtime = new EdgeRuntime({ initialCode: bundle.code })
  const response = await runtime.dispatchFetch("http://localhost/", { method: "POST", body: JSON.stringify(env) })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`the edge function answered ${response.status}: ${text.slice(0, 2000)}`)
  // The runtime calls itself just "edge-runtime"; the package says which release it is.
  return { ...(JSON.parse(text) as DriverReport), version: packageVersion("edge-runtime") }
})
