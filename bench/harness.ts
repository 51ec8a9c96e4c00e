/**
 * Shared by `bench/run.ts` and `bench/bench.test.ts`: start a bench server in its own
 * process, sign in through it like a browser would, and check the session it serves.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import { BASE_PATH, BENCH_CREDENTIALS, BENCH_USER, STATS_PREFIX, type Target } from "./shared.ts"

const SERVER_SCRIPT = fileURLToPath(new URL("./server.ts", import.meta.url))
const SIGN_IN_SCRIPT = fileURLToPath(new URL("./burst-signins.ts", import.meta.url))
const SESSION_COOKIE = "authjs.session-token"

export interface RunningServer {
  target: Target
  url: string
  child: ChildProcess
  /** Set once the process has exited, with its code or signal. */
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
  /** What the server reported on shutdown (`STATS` line); set once `stop()` resolved. */
  stats: { writes: Record<string, number>; memory?: { rss: number; heapUsed: number } } | undefined
  /** Asks the server to exit (SIGTERM) and waits for it (and its output). */
  stop(): Promise<void>
}

/** Starts `node bench/server.ts <target> 0` and resolves once it listens. */
export function startServer(target: Target, options: { execArgv?: string[]; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunningServer> {
  // Node 22.6-22.17 strip types only behind a flag; 22.18+ and 24 do it by default.
  const strip = (process.features as { typescript?: unknown }).typescript ? [] : ["--experimental-strip-types"]
  const child = spawn(process.execPath, [...strip, ...(options.execArgv ?? []), SERVER_SCRIPT, target, "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: options.env ? { ...process.env, ...options.env } : process.env,
  })
  // "close": the process exited and its stdout is drained (the STATS line is in).
  const closePromise = new Promise<void>((resolve) => child.once("close", () => resolve()))
  return new Promise((resolve, reject) => {
    let buffered = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`bench server ${target} did not start within ${options.timeoutMs ?? 15_000} ms`))
    }, options.timeoutMs ?? 15_000)
    const running: RunningServer = {
      target,
      url: "",
      child,
      exited: undefined,
      stats: undefined,
      async stop() {
        if (!running.exited) child.kill("SIGTERM")
        const hard = setTimeout(() => child.kill("SIGKILL"), 5_000)
        await closePromise
        clearTimeout(hard)
      },
    }
    child.once("exit", (code, signal) => {
      running.exited = { code, signal }
      clearTimeout(timer)
      reject(new Error(`bench server ${target} exited before listening (code ${code}, signal ${signal})`))
    })
    child.once("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      buffered += chunk
      let newline: number
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        const listening = running.url ? null : /^LISTENING (\d+)$/.exec(line)
        if (listening) {
          clearTimeout(timer)
          running.url = `http://127.0.0.1:${listening[1]}`
          resolve(running)
        } else if (line.startsWith(STATS_PREFIX)) {
          running.stats = JSON.parse(line.slice(STATS_PREFIX.length))
        } else {
          process.stdout.write(`${line}\n`)
        }
      }
    })
  })
}

/** The `name=value` pairs of a response's Set-Cookie headers. */
function cookiePairs(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(";") === -1 ? c.length : c.indexOf(";")))
}

/**
 * Signs in with the Credentials provider as a browser does: GET /csrf (token + cookie),
 * then POST /callback/credentials with both. Returns the `Cookie` header value carrying
 * the session (chunked or not).
 */
export async function signIn(url: string): Promise<string> {
  const csrfResponse = await fetch(`${url}${BASE_PATH}/csrf`)
  if (csrfResponse.status !== 200) throw new Error(`GET ${BASE_PATH}/csrf answered ${csrfResponse.status}`)
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken?: string }
  if (typeof csrfToken !== "string" || !csrfToken) throw new Error(`GET ${BASE_PATH}/csrf returned no csrfToken`)
  const csrfCookies = cookiePairs(csrfResponse)

  const callback = await fetch(`${url}${BASE_PATH}/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies.join("; ") },
    body: new URLSearchParams({ csrfToken, callbackUrl: url, ...BENCH_CREDENTIALS }),
  })
  await callback.arrayBuffer()
  const session = cookiePairs(callback).filter((pair) => pair.startsWith(SESSION_COOKIE) && !pair.endsWith("="))
  if (callback.status !== 302 || !session.length) {
    const location = callback.headers.get("location")
    throw new Error(`sign-in failed: POST callback/credentials answered ${callback.status} (location ${location}) without a session cookie`)
  }
  return session.join("; ")
}

export interface SessionCheck {
  status: number
  session: { user?: { name?: string; email?: string }; expires?: string } | null
  /** Whether the response set (re-issued) the session cookie. */
  reissued: boolean
}

/** GET /session with `cookie`. */
export async function getSession(url: string, cookie: string): Promise<SessionCheck> {
  const response = await fetch(`${url}${BASE_PATH}/session`, { headers: { cookie } })
  const text = await response.text()
  let session: SessionCheck["session"] = null
  try {
    session = JSON.parse(text)
  } catch {
    // a non-JSON body is reported as no session
  }
  const reissued = cookiePairs(response).some((pair) => pair.startsWith(SESSION_COOKIE) && !pair.endsWith("="))
  return { status: response.status, session, reissued }
}

/** Whether a parsed session body is the bench user's. */
export function isBenchSession(session: unknown): boolean {
  const user = (session as { user?: { email?: unknown; name?: unknown } } | null)?.user
  return user?.email === BENCH_USER.email && user?.name === BENCH_USER.name
}

/** A credentials sign-in the burst row repeats: where it goes, what it sends, how many per second. */
export interface SignInSpec {
  url: string
  headers: Record<string, string>
  body: string
  rate: number
}

/** The burst row's sign-in process: `start()` begins a phase, `stop()` ends it with its counts. */
export interface SignInDriver {
  start(): void
  stop(): Promise<{ ok: number; failed: number }>
  /** Ends the process (its stdin closes). */
  close(): void
}

/** The burst row's sign-in process (`burst-signins.ts`), started and ready. */
export async function startSignInDriver(signIn: SignInSpec): Promise<SignInDriver> {
  const strip = (process.features as { typescript?: unknown }).typescript ? [] : ["--experimental-strip-types"]
  const child = spawn(process.execPath, [...strip, SIGN_IN_SCRIPT], {
    env: { ...process.env, BURST_SIGNIN: JSON.stringify(signIn) },
    stdio: ["pipe", "pipe", "inherit"],
  })
  const lines: string[] = []
  const waiting: ((line: string) => void)[] = []
  let pending = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk
    let newline
    while ((newline = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      const next = waiting.shift()
      if (next) next(line)
      else lines.push(line)
    }
  })
  const exited = new Promise<string>((done) => child.once("exit", (code) => done(`exited (${code})`)))
  const nextLine = () => Promise.race([lines.length ? Promise.resolve(lines.shift()!) : new Promise<string>((done) => waiting.push(done)), exited])
  const ready = await nextLine()
  if (ready !== "ready") throw new Error(`burst row: the sign-in process did not start (${ready})`)
  return {
    start: () => child.stdin.write("start\n"),
    async stop(): Promise<{ ok: number; failed: number }> {
      child.stdin.write("stop\n")
      const line = await nextLine()
      try {
        return JSON.parse(line) as { ok: number; failed: number }
      } catch {
        throw new Error(`burst row: the sign-in process answered ${JSON.stringify(line)}`)
      }
    },
    close: () => child.stdin.end(),
  }
}
