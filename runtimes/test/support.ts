/**
 * What every runtime's test shares: the local OpenID provider the scenarios sign in
 * against, locating a runtime installed from the npm registry, the CI rule (a runtime
 * that is missing or does not start fails in CI and is skipped elsewhere), and the
 * assertion that a driver reported every shared scenario as passed.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pg from "pg"
import { isCI, postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { APP_ORIGIN, OIDC_PROVIDER_ID, scenarioNames, type ScenarioEnv, type ScenarioResult } from "../scenarios.ts"

/** What a driver prints (one JSON line). */
export interface DriverReport {
  runtime: string
  version: string
  results: ScenarioResult[]
}

/** Where a runtime comes from: a file inside an installed registry package. */
export interface RuntimeSource {
  /** The package carrying the binary or library, e.g. `@oven/bun-linux-x64`. */
  pkg: string
  /** The file inside it that must exist, e.g. `bin/bun`. */
  file: string
}

const require = createRequire(import.meta.url)

/** The absolute path of a runtime's file, or why it is not there. */
export function locate(source: RuntimeSource): { path: string } | { missing: string } {
  try {
    const path = join(dirname(require.resolve(`${source.pkg}/package.json`)), source.file)
    return existsSync(path) ? { path } : { missing: `${source.pkg} is installed but has no ${source.file}` }
  } catch {
    return { missing: `${source.pkg} is not installed (scripts/test-deps.ts installs it from test-deps/ on linux-x64)` }
  }
}

/**
 * Starts the local OpenID provider (`oidc-provider` on loopback) before the suite and
 * returns the env the scenarios need, filled in once it is up.
 */
export function useOidcProvider(): ScenarioEnv {
  const env: ScenarioEnv = {}
  let op: DemoOidcProvider | undefined
  beforeAll(async () => {
    const client = { clientId: "runtime-matrix", clientSecret: "runtime-matrix-secret" }
    op = await startDemoOidcProvider({ port: 0, ...client, redirectUris: [`${APP_ORIGIN}/auth/callback/${OIDC_PROVIDER_ID}`] })
    env.oidc = { issuer: op.issuer, ...client }
  })
  afterAll(() => op?.close())
  return env
}

/**
 * Registers `body` under `title` when the runtime is there. When it is not, CI gets a
 * failing test naming what is missing (CI=true requires every runtime of the matrix), a
 * laptop a skipped suite and one line saying so.
 */
export function describeWhere(available: { missing: string } | { path: string }, title: string, body: () => void): void {
  if (!("missing" in available)) {
    describe(title, body)
    return
  }
  if (!isCI()) {
    console.log(`skipping ${title}: ${available.missing}`)
    describe.skip(title, body)
    return
  }
  describe(title, () => {
    it("has its runtime installed (CI=true requires every runtime of the matrix)", () => {
      throw new Error(`${title}: ${available.missing}`)
    })
  })
}

/**
 * Registers the suite of one runtime (see {@link describeWhere} for a missing one).
 * `run` starts the runtime with the scenarios and returns the driver's report.
 */
export function describeRuntime(title: string, available: { missing: string } | { path: string }, run: (env: ScenarioEnv) => Promise<DriverReport>): void {
  describeWhere(available, title, () => {
    const env = useOidcProvider()
    let report: DriverReport | undefined
    let failure: unknown

    beforeAll(async () => {
      const started = performance.now()
      try {
        report = await run(env)
      } catch (error) {
        failure = error
        return
      }
      const total = report.results.reduce((sum, r) => sum + r.ms, 0)
      const passed = report.results.filter((r) => r.ok).length
      console.log(`[runtimes] ${report.runtime} ${report.version}: ${passed}/${scenarioNames.length} scenarios passed; ${total} ms in scenarios, ${Math.round(performance.now() - started)} ms with start-up`)
    }, 120_000)

    it("starts and reports exactly the shared scenarios, in order", () => {
      if (failure) throw failure
      expect(report?.results.map((r) => r.name)).toEqual(scenarioNames)
    })

    it.each(scenarioNames)("%s", (name) => {
      if (failure) throw failure
      const result = report?.results.find((r) => r.name === name)
      expect(result, `${title} reported "${name}"`).toBeDefined()
      expect(result?.error).toBeUndefined()
      expect(result?.ok).toBe(true)
    })
  })
}

/**
 * Runs a driver as a child process with the env as its one argument; resolves with the
 * last line it printed, parsed. Rejects with its stderr when it exits non-zero, prints
 * no report, or runs longer than `timeoutMs`.
 */
export function runDriver(command: string, args: string[], env: unknown, timeoutMs = 90_000): Promise<DriverReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args, JSON.stringify(env)], {
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      const last = stdout.trim().split("\n").at(-1) ?? ""
      try {
        if (code !== 0) throw new Error(`exited with ${code ?? signal}`)
        resolve(JSON.parse(last) as DriverReport)
      } catch (error) {
        reject(new Error(`${command} ${args.join(" ")}: ${(error as Error).message}\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-4000)}`))
      }
    })
  })
}

/**
 * The local PostgreSQL for the runtimes' database tests: its service entry, a gate that
 * skips (or, in CI, fails) when it is down, and `admin(sql)` for statements such as
 * `CREATE DATABASE` that run outside any test database.
 */
export async function localPostgres() {
  const service = postgresService()
  const query = async (sql: string): Promise<void> => {
    const client = new pg.Client(service.url)
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  const gate = await serviceAvailable(service, () => query("SELECT 1"))
  return { service, gate, admin: query }
}
