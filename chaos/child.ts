// Runs chaos/app.ts as a child process on a fixed port and watches it: an exit we did not
// ask for is a crash; it is counted, and the app is started again so the run can go on.
import { spawn, type ChildProcess } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const APP = fileURLToPath(new URL("./app.ts", import.meta.url))
/** Crashes after which the app is not started again (the run has failed by then anyway). */
const MAX_RESTARTS = 5

/** A supervised app process. */
export interface AppProcess {
  readonly base: string
  /** Unexpected exits so far. */
  readonly crashes: number
  /** Lines of stderr that mention an unhandled error. */
  readonly unhandledLines: number
  /** The last lines the app wrote to stderr, for the report of a failure. */
  readonly stderrTail: string[]
  /** Magic links the app's capturing sender printed, in order. */
  readonly magicLinks: string[]
  stop(): Promise<void>
}

/** Starts the app for `store` at `storeUrl` on `port` and waits until it listens. */
export async function startApp(store: "postgres" | "redis", storeUrl: string, port: number, env: NodeJS.ProcessEnv = {}): Promise<AppProcess> {
  let child: ChildProcess
  let stopping = false
  const state = { crashes: 0, unhandledLines: 0, stderrTail: [] as string[], magicLinks: [] as string[] }

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      child = spawn(process.execPath, [APP], {
        env: { ...process.env, ...env, CHAOS_STORE: store, CHAOS_STORE_URL: storeUrl, PORT: String(port), NODE_ENV: "development" },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let listening = false
      createInterface({ input: child.stdout! }).on("line", (line) => {
        try {
          const message = JSON.parse(line) as { listening?: number; magicLink?: string }
          if (message.listening) {
            listening = true
            resolve()
          }
          if (message.magicLink) state.magicLinks.push(message.magicLink)
        } catch {}
      })
      createInterface({ input: child.stderr! }).on("line", (line) => {
        if (/unhandled/i.test(line)) state.unhandledLines++
        state.stderrTail.push(line)
        if (state.stderrTail.length > 30) state.stderrTail.shift()
      })
      child.once("exit", (code, signal) => {
        if (!listening) return reject(new Error(`the app exited before listening (${code ?? signal}): ${state.stderrTail.join("\n")}`))
        if (stopping) return
        state.crashes++
        state.stderrTail.push(`-- the app exited (${code ?? signal}); starting it again`)
        // Start it again so the next scenario still has an app. Only after a crash of an app
        // that was serving, and at most a few times: an app that cannot start is not retried.
        if (state.crashes <= MAX_RESTARTS) launch().catch((error) => state.stderrTail.push(String(error)))
      })
    })

  await launch()
  return {
    base: `http://127.0.0.1:${port}`,
    get crashes() {
      return state.crashes
    },
    get unhandledLines() {
      return state.unhandledLines
    },
    stderrTail: state.stderrTail,
    magicLinks: state.magicLinks,
    async stop() {
      stopping = true
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    },
  }
}
