/**
 * The line protocol of two-process tests, test side: a worker script (run by Node itself,
 * see `worker-host.ts` for its side) prints `ready` once connected, then answers each
 * command line on stdin with one line on stdout.
 * @module
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { postgresService, redisService, type ServiceGate } from "./services.js"

/**
 * Resolves with the next line `child` prints; rejects with its stderr if it exits first.
 *
 * @example
 * ```ts
 * const answer = nextLine(child)
 * child.stdin.write("session abc\n")
 * JSON.parse(await answer)
 * ```
 */
export function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ""
    let stderr = ""
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString()
      const end = buffered.indexOf("\n")
      if (end < 0) return
      child.stdout.off("data", onData)
      child.stderr.off("data", onErr)
      // Answered: a later exit must not reject this settled promise's listeners forever.
      child.off("exit", onExit)
      resolve(buffered.slice(0, end))
    }
    const onErr = (chunk: Buffer) => void (stderr += chunk.toString())
    const onExit = (code: number | null) => reject(new Error(`worker exited (${code}) before answering: ${stderr}`))
    child.stdout.on("data", onData)
    child.stderr.on("data", onErr)
    child.once("exit", onExit)
  })
}

/** A worker process speaking the line protocol. */
export interface LineWorker {
  readonly child: ChildProcessWithoutNullStreams
  /** Sends one command line; resolves with the one line answered. */
  ask(command: string): Promise<string>
  /** Kills the process if it still runs. */
  stop(): void
}

/**
 * Starts one Node process per entry of `options` on `script` (options as JSON in `argv[2]`)
 * and waits until every one printed `ready`, so the commands sent next overlap. If one does
 * not come up, all are stopped and the error is thrown.
 *
 * @example
 * ```ts
 * const workers = await startWorkers(worker, [options, options])
 * try {
 *   const answers = await askAll(workers, "go")
 * } finally {
 *   for (const w of workers) w.stop()
 * }
 * ```
 */
export async function startWorkers(script: string, options: readonly unknown[], nodeArgs: readonly string[] = []): Promise<LineWorker[]> {
  const workers = options.map((each): LineWorker => {
    const child = spawn(process.execPath, ["--no-warnings", ...nodeArgs, script, JSON.stringify(each)], { stdio: ["pipe", "pipe", "pipe"] })
    return {
      child,
      ask(command) {
        const answer = nextLine(child)
        child.stdin.write(`${command}\n`)
        return answer
      },
      stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill()
      },
    }
  })
  try {
    const ready = await Promise.all(workers.map((w) => nextLine(w.child)))
    const wrong = ready.find((line) => line !== "ready")
    if (wrong !== undefined) throw new Error(`worker said ${JSON.stringify(wrong)} instead of "ready"`)
  } catch (error) {
    for (const w of workers) w.stop()
    throw error
  }
  return workers
}

/**
 * Sends `command` to every worker at once (listening first, so no answer is missed);
 * resolves with their answers in worker order.
 *
 * @example
 * ```ts
 * const outcomes = (await askAll(workers, "take saml-request _id 25")).flatMap((line) => JSON.parse(line))
 * ```
 */
export function askAll(workers: readonly LineWorker[], command: string): Promise<string[]> {
  return Promise.all(workers.map((w) => w.ask(command)))
}

/** What a worker needs to reach the store the test process opened (see `worker-host.ts`). */
export interface SharedStoreOptions {
  backend: "postgres" | "redis"
  url: string
  /** Table prefix (PostgreSQL) or key prefix (Redis). */
  prefix: string
}

/**
 * Registers `spec` once per store that several processes can share, each behind its gate:
 * on the test PostgreSQL (a harness with a `tablePrefix`) and on the test Redis (one with a
 * key `prefix`). The harness `spec` opens comes with the `options` to hand its workers.
 *
 * @example
 * ```ts
 * describeSharedStores({ postgres: postgresGate, redis: redisGate },
 *   { postgres: () => openSqlStore(postgresBackend()), redis: openRedisStore }, multiInstanceSpec)
 * ```
 */
export function describeSharedStores<Sql extends { tablePrefix: string }, Kv extends { prefix: string }>(
  gates: { postgres: ServiceGate; redis: ServiceGate },
  open: { postgres(): Promise<Sql>; redis(): Promise<Kv> },
  spec: (label: string, open: () => Promise<(Sql | Kv) & { options: SharedStoreOptions }>) => void,
): void {
  gates.postgres.describe("PostgreSQL", () => {
    spec("PostgreSQL", async () => {
      const harness = await open.postgres()
      return { ...harness, options: { backend: "postgres", url: postgresService().url, prefix: harness.tablePrefix } }
    })
  })
  gates.redis.describe("Redis", () => {
    spec("Redis", async () => {
      const harness = await open.redis()
      return { ...harness, options: { backend: "redis", url: redisService().url, prefix: harness.prefix } }
    })
  })
}
