/**
 * The end-to-end bed: app instances (./app.ts) as child processes on one throwaway store,
 * and people with their own cookie jars who talk to any instance over HTTP — JSON to the
 * organizations routes with the CSRF header, as the browser client does.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { serviceAvailable } from "@portcullis/adapter-test"
import { freePort, missingBinaries, startThrowawayPostgres, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { E2E_PASSWORD, E2E_SECRET } from "./constants.ts"

const APP = fileURLToPath(new URL("./app.ts", import.meta.url))

export type StoreKind = "postgres" | "redis"

/** The stores the suites run on, each gated on its server binaries (skipped locally, failed under CI=true). */
export const STORES = [
  { kind: "postgres" as const, label: "PostgreSQL", start: startThrowawayPostgres, gate: await binariesGate("postgres", "install PostgreSQL (initdb, postgres)") },
  { kind: "redis" as const, label: "Redis", start: startThrowawayRedis, gate: await binariesGate("redis", "install redis-server") },
]

function binariesGate(kind: StoreKind, hint: string) {
  return serviceAvailable({ name: `${kind} binaries`, url: "tcp://127.0.0.1:0", start: hint }, async () => {
    const missing = missingBinaries(kind)
    if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
  })
}

/** One line the app logged on stderr (JSON), or the raw line if it was not JSON. */
export interface LogLine {
  source?: "auth" | "store-client" | "app"
  level?: "error" | "warn"
  code?: string
  details?: { store?: string; failures?: number }
  message?: string
  chain?: Array<{ name?: string; message?: string; stack?: string }>
  raw: string
}

/** A running app instance. */
export interface Instance {
  readonly base: string
  /** Emails the instance sent, in order. */
  readonly mails: Array<{ to: string; url: string }>
  /** Everything it logged. */
  readonly logs: LogLine[]
  /** Exits nobody asked for. */
  readonly crashes: number
  stop(): Promise<void>
}

/** Starts one instance and waits until it listens. */
export async function startInstance(kind: StoreKind, storeUrl: string, port: number, env: Record<string, string> = {}): Promise<Instance> {
  const mails: Array<{ to: string; url: string }> = []
  const logs: LogLine[] = []
  let crashes = 0
  let stopping = false
  const child: ChildProcess = spawn(process.execPath, ["--no-warnings", APP], {
    env: { ...process.env, AUTH_SECRET: E2E_SECRET, E2E_STORE: kind, E2E_STORE_URL: storeUrl, PORT: String(port), NODE_ENV: "development", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  createInterface({ input: child.stderr! }).on("line", (raw) => {
    try {
      logs.push({ ...(JSON.parse(raw) as object), raw })
    } catch {
      logs.push({ raw })
    }
  })
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const message = JSON.parse(line) as { listening?: number; mail?: { to: string; url: string } }
        if (message.listening) resolve()
        if (message.mail) mails.push(message.mail)
      } catch {}
    })
    child.once("exit", (code, signal) => {
      if (!stopping) crashes++
      reject(new Error(`the app exited (${code ?? signal}): ${logs.map((l) => l.raw).join("\n")}`))
    })
  })
  return {
    base: `http://127.0.0.1:${port}`,
    mails,
    logs,
    get crashes() {
      return crashes
    },
    async stop() {
      stopping = true
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    },
  }
}

/** A throwaway store and `count` instances on it, all trusting each other's origin. */
export async function startCluster(store: (typeof STORES)[number], count: number, env: Record<string, string> = {}) {
  const server: ThrowawayServer = await store.start()
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()))
  const trusted = ports.map((port) => `http://127.0.0.1:${port}`).join(",")
  const prefix = `e2e:${Math.random().toString(36).slice(2, 8)}:`
  const instances: Instance[] = []
  // One after the other: the first migrates, the next find the migrations done.
  for (const port of ports) instances.push(await startInstance(store.kind, server.url, port, { E2E_TRUSTED_ORIGINS: trusted, E2E_PREFIX: prefix, ...env }))
  return {
    server,
    instances,
    async close() {
      await Promise.all(instances.map((instance) => instance.stop()))
      await server.close()
    },
  }
}

/** An answer: status, parsed JSON (or the text), and the raw response. */
export interface Answer {
  status: number
  body: any
  text: string
  headers: Headers
}

const STACK = /\bat [^\n]*\(?[^\s()]+:\d+:\d+\)?/

/** Whether an answer shows a stack trace (which no answer may). */
export const showsStack = (answer: Answer) => STACK.test(answer.text)

/** A person with a browser's cookie jar, who may talk to any instance. */
export class Person {
  readonly jar = new Map<string, string>()
  readonly email: string
  constructor(email: string) {
    this.email = email
  }

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ")
  }

  /** Any request; the status 0 means no answer came (refused, reset or timed out). */
  async request(base: string, path: string, init: { method?: string; json?: unknown; form?: Record<string, string>; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Answer> {
    const headers = new Headers({ origin: base, ...init.headers })
    if (this.jar.size) headers.set("cookie", this.cookieHeader())
    let body: string | undefined
    if (init.json !== undefined) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(init.json)
    } else if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    let response: Response
    try {
      response = await fetch(base + path, { method: init.method ?? (body ? "POST" : "GET"), headers, body, redirect: "manual", signal: AbortSignal.timeout(init.timeoutMs ?? 30_000) })
    } catch {
      return { status: 0, body: null, text: "", headers: new Headers() }
    }
    for (const header of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(";")
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq).trim()
      const value = decodeURIComponent(pair.slice(eq + 1).trim())
      if (!value || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.jar.delete(name)
      else this.jar.set(name, value)
    }
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, body: parsed, text, headers: response.headers }
  }

  async csrfToken(base: string): Promise<string> {
    const answer = await this.request(base, "/auth/csrf")
    if (answer.status !== 200) throw new Error(`csrf: ${answer.status}`)
    return answer.body.csrfToken as string
  }

  /** Signs in (a sign-up the first time) with the credentials provider. */
  async signIn(base: string): Promise<void> {
    const csrfToken = await this.csrfToken(base)
    const answer = await this.request(base, "/auth/callback/credentials", { form: { email: this.email, password: E2E_PASSWORD, csrfToken } })
    if (answer.status !== 302 || !this.jar.has("authjs.session-token")) throw new Error(`sign-in of ${this.email} failed: ${answer.status} ${answer.headers.get("location")}`)
    this.#csrf = csrfToken
  }

  /** The CSRF token the browser client keeps (one per person: every instance shares the secret). */
  #csrf: string | undefined

  /** A POST to an organizations route with the CSRF header, as the browser client sends it. */
  async post(base: string, path: string, json: Record<string, unknown> = {}, timeoutMs?: number): Promise<Answer> {
    const csrfToken = (this.#csrf ??= await this.csrfToken(base))
    return this.request(base, `/auth/organizations${path ? `/${path}` : ""}`, { json, headers: { "x-csrf-token": csrfToken }, ...(timeoutMs && { timeoutMs }) })
  }

  get(base: string, path: string): Promise<Answer> {
    return this.request(base, `/auth/organizations${path ? `/${path}` : ""}`)
  }

  /** The session answer's `organizations` field. */
  async sessionOrganizations(base: string): Promise<{ userId: string; active: { id: string; role: string } | null } | undefined> {
    const answer = await this.request(base, "/auth/session")
    if (answer.status !== 200) throw new Error(`session: ${answer.status}`)
    return answer.body?.organizations
  }

  /** The app's `can` check (a server function). */
  async can(base: string, permission: string, organizationId?: string): Promise<boolean> {
    const query = new URLSearchParams({ permission, ...(organizationId && { organizationId }) })
    const answer = await this.request(base, `/app/can?${query}`)
    if (answer.status !== 200) throw new Error(`can: ${answer.status} ${answer.text}`)
    return answer.body.can as boolean
  }
}

/** A person signed in on `base`. */
export async function signedIn(base: string, email: string): Promise<Person> {
  const person = new Person(email)
  await person.signIn(base)
  return person
}

/** The id, token and path of the last invitation `instance` mailed to `email`. */
export function invitationFor(instance: Instance, email: string): { id: string; token: string; path: string } {
  const mail = [...instance.mails].reverse().find((m) => m.to === email)
  if (!mail) throw new Error(`no invitation mailed to ${email}`)
  const url = new URL(mail.url)
  return { id: url.pathname.split("/").at(-1)!, token: url.searchParams.get("token")!, path: url.pathname + url.search }
}
