/**
 * A PgBouncer of one test file's own (scripts/pgbouncer.sh on a port the kernel picked, in
 * a directory of its own), for tests that restart it or configure it differently from the
 * shared one on 6432. Gated on the binary: skipped locally without it, failing in CI.
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { rm } from "node:fs/promises"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { postgresService, serviceAvailable, type ServiceGate } from "@portcullis/adapter-test"

const run = promisify(execFile)
const script = fileURLToPath(new URL("../../../scripts/pgbouncer.sh", import.meta.url))
const binary = process.env.PGBOUNCER_BIN ?? "/usr/sbin/pgbouncer"

/** The gate: the pgbouncer binary is installed. */
export function pgbouncerBinaryGate(): Promise<ServiceGate> {
  return serviceAvailable({ name: "PgBouncer binary", url: "tcp://127.0.0.1:0", start: "apt-get install pgbouncer, or set PGBOUNCER_BIN" }, async () => {
    if (!existsSync(binary)) throw new Error(`not installed: ${binary}`)
  })
}

/** A running PgBouncer of the test's own. */
export interface OwnPgBouncer {
  /** The test database through it. */
  url: string
  /** `scripts/pgbouncer.sh <command>` on this instance (`restart`, `stop`, ...). */
  run(command: "start" | "stop" | "restart" | "status"): Promise<unknown>
  /** Stops it and deletes its directory. */
  close(): Promise<void>
}

/**
 * Starts a PgBouncer in transaction pooling mode in front of the test PostgreSQL;
 * `env` overrides the script's settings (e.g. `PGBOUNCER_IGNORE_STARTUP_PARAMETERS`).
 *
 * @example
 * ```ts
 * const bouncer = await startOwnPgBouncer("restart")
 * await bouncer.run("restart")
 * await bouncer.close()
 * ```
 */
export async function startOwnPgBouncer(tag: string, env: Record<string, string> = {}): Promise<OwnPgBouncer> {
  const port = await freePort()
  const dir = `/tmp/portcullis-pgbouncer-${tag}-${process.pid}`
  const settings = { ...process.env, PGBOUNCER_BIN: binary, PGBOUNCER_DIR: dir, PGBOUNCER_PORT: String(port), ...env }
  const bouncer: OwnPgBouncer = {
    url: postgresService().url.replace(/:\d+\//, `:${port}/`),
    run: (command) => run(script, [command], { env: settings }),
    async close() {
      await bouncer.run("stop")
      await rm(dir, { recursive: true, force: true })
    },
  }
  await bouncer.run("start")
  return bouncer
}

/** A port nothing listens on right now, from the kernel. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
