/**
 * The shared scenarios on Bun, the binary of the pinned `@oven/bun-linux-x64` package
 * (an optional dependency of the repository: `npm ci` installs it on linux-x64).
 */
import { fileURLToPath } from "node:url"
import { describeRuntime, locate, runDriver } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/bun.ts", import.meta.url))
const bun = locate({ pkg: "@oven/bun-linux-x64", file: "bin/bun" })

describeRuntime("Bun runs the shared scenarios", bun, (env) => runDriver("path" in bun ? bun.path : "bun", [driver], env))
