/**
 * The shared scenarios on Deno, the binary of the pinned `@deno/linux-x64-glibc` package
 * (an optional dependency of the repository: `npm ci` installs it on linux-x64). Deno
 * resolves `@portcullis/core` through the repository's node_modules, as in a Deno app
 * with a package.json; it gets network, env and read permissions only.
 */
import { fileURLToPath } from "node:url"
import { describeRuntime, locate, runDriver } from "./support.ts"

const driver = fileURLToPath(new URL("../drivers/deno.ts", import.meta.url))
const deno = locate({ pkg: "@deno/linux-x64-glibc", file: "deno" })

describeRuntime("Deno runs the shared scenarios", deno, (env) =>
  runDriver("path" in deno ? deno.path : "deno", ["run", "--no-lock", "--allow-net=127.0.0.1,localhost", "--allow-env", "--allow-read", driver], env),
)
