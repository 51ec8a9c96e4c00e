/**
 * Throwaway database servers for fault tests: a PostgreSQL, Redis or MariaDB of the test's
 * own, on a free loopback port with a data folder in the temp directory, that the test may
 * restart, kill -9 or pause (SIGSTOP) without disturbing the shared servers others use.
 *
 * No vitest here: the chaos suite imports this from a plain Node process.
 * @module
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { accessSync, chownSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { pingRedis } from "./redis-ping.js"

/** A server process the caller owns. Every method waits until the change took effect. */
export interface ThrowawayServer {
  /** `PostgreSQL`, `Redis` or `MariaDB`. */
  readonly name: string
  /** Connection URL, e.g. `postgres://postgres@127.0.0.1:54123/postgres`. */
  readonly url: string
  readonly port: number
  /** Starts the server (again) on the same port and data, and waits until it answers. */
  start(): Promise<void>
  /** A clean shutdown (SIGTERM/SIGINT), waiting for the process to exit. */
  stop(): Promise<void>
  /** `stop()` then `start()`. */
  restart(): Promise<void>
  /** SIGKILL to the server and every process it forked, as after a machine crash. */
  kill(): Promise<void>
  /** SIGSTOP to the server and its processes: connections stay open but nothing answers. */
  pause(): void
  /** SIGCONT after {@link pause}. */
  resume(): void
  /** The server's process ids (the main process and its children). */
  pids(): number[]
  /** Stops the server for good and deletes its data. */
  close(): Promise<void>
}

/**
 * Where to look for server binaries besides `PATH`: Debian keeps PostgreSQL's in
 * /usr/lib/postgresql/<version>/bin (newest first).
 */
function extraBinDirs(): string[] {
  let versions: string[] = []
  try {
    versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a))
  } catch {}
  return ["/usr/local/bin", "/usr/sbin", "/usr/bin", ...versions.map((v) => `/usr/lib/postgresql/${v}/bin`)]
}

/** The path of an executable, or `undefined` when it is not installed. */
export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), ...extraBinDirs()].filter(Boolean)
  for (const dir of dirs) {
    const file = join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return undefined
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Polls `check` every 50 ms until it succeeds; throws its last error after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<unknown>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      await check()
      return
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms: ${String(last)}`)
}

const isRoot = () => process.getuid?.() === 0

/** Runs a command as `user` when we are root (PostgreSQL and MariaDB refuse to run as root). */
function asUser(user: string | undefined, command: string, args: string[]): [string, string[]] {
  return user && isRoot() ? [findBinary("runuser") ?? "runuser", ["-u", user, "--", command, ...args]] : [command, args]
}

function uidOf(user: string): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith(`${user}:`))
  if (!line) throw new Error(`no user ${user}`)
  const [, , uid, gid] = line.split(":")
  return { uid: Number(uid), gid: Number(gid) }
}

/** The direct children of a process (pgrep -P), for signalling a server's whole tree. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number)
  } catch {
    return []
  }
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig)
    } catch {}
  }
}

/**
 * Whether process `pid` still runs (signal 0 checks without sending anything).
 *
 * @example
 * ```ts
 * await waitUntil("the worker to exit", async () => { if (alive(pid)) throw new Error("still running") })
 * ```
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** What differs between the servers; {@link throwawayServer} does the rest. */
interface ServerRecipe {
  name: string
  port: number
  url: string
  dataDir: string
  /** The command that runs the server in the foreground. */
  command: [string, string[]]
  /** The main server process, once started (PostgreSQL runs under runuser when root). */
  mainPid(child: ChildProcess): number
  /** Resolves when the server answers a real request. */
  ready(): Promise<void>
  stopSignal: NodeJS.Signals
}

function throwawayServer(recipe: ServerRecipe): ThrowawayServer {
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let log = ""

  const pids = () => {
    if (!child?.pid) return []
    const main = recipe.mainPid(child)
    return [child.pid, ...(main !== child.pid ? [main] : []), ...childrenOf(main)].filter(alive)
  }

  const server: ThrowawayServer = {
    name: recipe.name,
    url: recipe.url,
    port: recipe.port,
    async start() {
      const [command, args] = recipe.command
      child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
      const keepLog = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000))
      child.stdout?.on("data", keepLog)
      child.stderr?.on("data", keepLog)
      const current = child
      exited = new Promise((resolve) => current.once("exit", () => resolve()))
      try {
        await waitUntil(recipe.name, async () => {
          if (current.exitCode !== null || current.signalCode !== null) throw new Error(`exited: ${log}`)
          await recipe.ready()
        })
      } catch (error) {
        signal(pids(), "SIGKILL")
        throw new Error(`${recipe.name} on port ${recipe.port} did not start: ${(error as Error).message}\n${log}`)
      }
    },
    async stop() {
      if (!child?.pid) return
      signal([recipe.mainPid(child)], recipe.stopSignal)
      await exited
      child = undefined
    },
    async restart() {
      await server.stop()
      await server.start()
    },
    async kill() {
      signal(pids(), "SIGKILL")
      await exited
      // Orphaned workers (PostgreSQL backends) can outlive the main process briefly.
      await waitUntil(`${recipe.name} processes to exit`, async () => {
        if (child?.pid && [recipe.mainPid(child), ...childrenOf(recipe.mainPid(child))].some(alive)) throw new Error("still running")
      }, 10_000).catch(() => {})
      child = undefined
    },
    pause: () => signal(pids(), "SIGSTOP"),
    resume: () => signal(pids(), "SIGCONT"),
    pids,
    async close() {
      if (child) {
        server.resume()
        await server.kill()
      }
      rmSync(recipe.dataDir, { recursive: true, force: true })
    },
  }
  return server
}

/** The Redis server binary: `redis-server`, or `PORTCULLIS_REDIS_SERVER` (`valkey-server` runs the same tests on Valkey). */
const REDIS_SERVER = process.env.PORTCULLIS_REDIS_SERVER || "redis-server"

/** The binaries a throwaway server of each kind needs. */
export const THROWAWAY_BINARIES = {
  postgres: ["initdb", "postgres"],
  redis: [REDIS_SERVER],
  mariadb: ["mariadb-install-db", "mariadbd"],
} as const

/** The binaries of `kind` that are not installed (empty when it can run). */
export function missingBinaries(kind: keyof typeof THROWAWAY_BINARIES): string[] {
  return THROWAWAY_BINARIES[kind].filter((name) => !findBinary(name))
}

/**
 * A fresh PostgreSQL cluster (initdb, trust auth on loopback) on a free port, started.
 * As root it runs as the `postgres` user. Its database `postgres` is the one to use.
 *
 * @example
 * ```ts
 * const server = await startThrowawayPostgres()
 * await server.restart()
 * await server.close()
 * ```
 */
export async function startThrowawayPostgres(): Promise<ThrowawayServer> {
  const [initdb, postgres] = ["initdb", "postgres"].map((name) => findBinary(name))
  if (!initdb || !postgres) throw new Error("PostgreSQL binaries (initdb, postgres) not found")
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-pg-"))
  const user = isRoot() ? "postgres" : undefined
  if (user) {
    const { uid, gid } = uidOf(user)
    chownSync(dataDir, uid, gid)
  }
  const [initCommand, initArgs] = asUser(user, initdb, ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
  execFileSync(initCommand, initArgs, { stdio: "pipe" })
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const server = throwawayServer({
    name: "PostgreSQL",
    port,
    url,
    dataDir,
    // fsync off: the data only has to survive a killed process, not a lost machine.
    command: asUser(user, postgres, ["-D", dataDir, "-p", String(port), "-k", dataDir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=60"]),
    mainPid: (child) => {
      try {
        return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]) || child.pid!
      } catch {
        return child.pid!
      }
    },
    ready: async () => {
      const { default: pg } = await import("pg")
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 })
      client.on("error", () => {})
      try {
        await client.connect()
        await client.query("SELECT 1")
      } finally {
        await client.end().catch(() => {})
      }
    },
    stopSignal: "SIGINT", // PostgreSQL's "fast" shutdown: ends sessions, like pg_ctl restart
  })
  await server.start()
  return server
}

/**
 * A redis-server (or `PORTCULLIS_REDIS_SERVER`'s binary) on a free port, started, with an append-only file synced on every write,
 * so a restart or a kill -9 keeps the data (as a production Redis holding sessions should).
 *
 * @example
 * ```ts
 * const server = await startThrowawayRedis()
 * await server.kill(); await server.start()
 * ```
 */
export async function startThrowawayRedis(): Promise<ThrowawayServer> {
  const redisServer = findBinary(REDIS_SERVER)
  if (!redisServer) throw new Error(`${REDIS_SERVER} not found`)
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-redis-"))
  const server = throwawayServer({
    name: "Redis",
    port,
    url: `redis://127.0.0.1:${port}`,
    dataDir,
    command: [redisServer, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir, "--daemonize", "no"]],
    mainPid: (child) => child.pid!,
    ready: () => pingRedis(`redis://127.0.0.1:${port}`, 1_000),
    stopSignal: "SIGTERM",
  })
  await server.start()
  return server
}

/**
 * A MariaDB server (mariadb-install-db into a temp folder) on a free port, started, with
 * a database `test`; root logs in without a password over TCP.
 */
export async function startThrowawayMariadb(): Promise<ThrowawayServer> {
  const [install, mariadbd] = ["mariadb-install-db", "mariadbd"].map((name) => findBinary(name))
  if (!install || !mariadbd) throw new Error("MariaDB binaries (mariadb-install-db, mariadbd) not found")
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-mariadb-"))
  const user = isRoot() ? "mysql" : undefined
  if (user) {
    const { uid, gid } = uidOf(user)
    chownSync(dataDir, uid, gid)
  }
  const [installCommand, installArgs] = asUser(user, install, ["--no-defaults", `--datadir=${dataDir}`, "--auth-root-authentication-method=normal", "--skip-test-db"])
  execFileSync(installCommand, installArgs, { stdio: "pipe" })
  const url = `mysql://root@127.0.0.1:${port}/mysql`
  const server = throwawayServer({
    name: "MariaDB",
    port,
    url,
    dataDir,
    command: asUser(user, mariadbd, ["--no-defaults", `--datadir=${dataDir}`, `--port=${port}`, "--bind-address=127.0.0.1", `--socket=${join(dataDir, "mysqld.sock")}`, `--pid-file=${join(dataDir, "mysqld.pid")}`, "--innodb-buffer-pool-size=16M", "--skip-log-bin"]),
    mainPid: (child) => {
      try {
        return Number(readFileSync(join(dataDir, "mysqld.pid"), "utf8").trim()) || child.pid!
      } catch {
        return child.pid!
      }
    },
    ready: async () => {
      const mysql = await import("mysql2/promise")
      const connection = await mysql.createConnection({ uri: url, connectTimeout: 1_000 })
      try {
        await connection.query("SELECT 1")
      } finally {
        connection.destroy()
      }
    },
    stopSignal: "SIGTERM",
  })
  await server.start()
  return server
}
