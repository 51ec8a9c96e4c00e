/**
 * The shared scenarios in Cloudflare's workerd, through miniflare (pinned; it brings the
 * `workerd` binary package): the driver is bundled as a module Worker the way an app's
 * Worker is bundled (`runtimes/bundle.ts`: `workerd`/`worker`/`browser` conditions, no
 * `nodejs_compat` flag), and the scenarios run inside the Worker, `Auth()` and all.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { Miniflare } from "miniflare"
import { bundleForEdge } from "../bundle.ts"
import type { DriverReport } from "./support.ts"
import { describeRuntime, locate } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/workerd.ts", import.meta.url))
const workerd = locate({ pkg: "workerd", file: "bin/workerd" })
// miniflare's own workerd, not whichever a hoisted `workerd` package happens to be.
const workerdVersion = (): string => {
  const fromMiniflare = createRequire(createRequire(import.meta.url).resolve("miniflare"))
  return (JSON.parse(readFileSync(fromMiniflare.resolve("workerd/package.json"), "utf8")) as { version: string }).version
}

describeRuntime("workerd runs the shared scenarios as a bundled Worker", workerd, async (env) => {
  const bundle = await bundleForEdge({ file: driver }, "workerd")
  if (bundle.nodeImports.length) throw new Error(`the Worker bundle imports Node built-ins: ${JSON.stringify(bundle.nodeImports)}`)
  const mf = new Miniflare({ modules: true, script: bundle.code, compatibilityDate: "2026-07-30" })
  try {
    const response = await mf.dispatchFetch("http://localhost/", { method: "POST", body: JSON.stringify(env) })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 2000)}`)
    // The Worker only knows navigator.userAgent ("Cloudflare-Workers"); the package says which release.
    return { ...(JSON.parse(text) as DriverReport), version: `workerd ${workerdVersion()}` }
  } finally {
    await mf.dispose()
  }
})
