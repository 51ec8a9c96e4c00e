import { Auth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"

export const SECRET = "a-test-secret-with-at-least-32-characters"

/** The demo user every flow signs in as. */
export const ada = { username: "ada", password: "correct horse battery staple" }

/** A config with one credentials provider, plus whatever the test adds. */
export function credentialsConfig(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        async authorize({ username, password }) {
          if (username === ada.username && password === ada.password) {
            return { id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" }
          }
          return null
        },
      }),
    ],
    ...extra,
  }
}

/** Sends a Web request somewhere and returns the response (no redirect following). */
export type Transport = (request: Request) => Promise<Response>

/** A transport that calls `Auth()` in-process. */
export function direct(config: AuthConfig): Transport {
  return (request) => Auth(request, config)
}

// A real server for the flows: `httpServer` in `./http-server.ts` (node:http, no integration).

/** A cookie as the browser stores it. */
export interface StoredCookie {
  value: string
  attributes: Record<string, string | true>
}

/** Parses one `Set-Cookie` header value. */
export function parseSetCookie(header: string): { name: string; value: string; attributes: Record<string, string | true> } {
  const [pair, ...attrs] = header.split(";")
  const eq = pair!.indexOf("=")
  const attributes: Record<string, string | true> = {}
  for (const a of attrs) {
    const [k, ...v] = a.trim().split("=")
    attributes[k!.toLowerCase()] = v.length ? v.join("=") : true
  }
  return { name: pair!.slice(0, eq).trim(), value: decodeURIComponent(pair!.slice(eq + 1).trim()), attributes }
}

/**
 * A minimal browser: keeps cookies (honouring deletions) and sends them back. Enough to
 * drive the flows the way a real browser does, against `Auth()` or a real server.
 */
export class Browser {
  readonly jar = new Map<string, StoredCookie>()
  lastSetCookies: ReturnType<typeof parseSetCookie>[] = []

  constructor(
    readonly transport: Transport,
    readonly origin = "http://localhost:3000",
  ) {}

  cookieHeader(): string {
    return [...this.jar].map(([k, c]) => `${k}=${encodeURIComponent(c.value)}`).join("; ")
  }

  async request(path: string, init: RequestInit & { form?: Record<string, string>; json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.jar.size && !headers.has("cookie")) headers.set("cookie", this.cookieHeader())
    let body = init.body
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    } else if (init.json !== undefined) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(init.json)
    }
    const method = init.method ?? (body !== undefined ? "POST" : "GET")
    const response = await this.transport(new Request(new URL(path, this.origin), { ...init, method, headers, body }))
    this.lastSetCookies = response.headers.getSetCookie().map(parseSetCookie)
    for (const c of this.lastSetCookies) {
      if (c.attributes["max-age"] === "0" || c.value === "") this.jar.delete(c.name)
      else this.jar.set(c.name, { value: c.value, attributes: c.attributes })
    }
    return response
  }

  async csrfToken(): Promise<string> {
    const response = await this.request("/auth/csrf")
    const { csrfToken } = (await response.json()) as { csrfToken: string }
    return csrfToken
  }

  async signIn(fields: Record<string, string> = ada, callbackUrl?: string): Promise<Response> {
    const csrfToken = await this.csrfToken()
    return this.request("/auth/callback/credentials", { form: { ...fields, csrfToken, ...(callbackUrl && { callbackUrl }) } })
  }

  async session(): Promise<any> {
    const response = await this.request("/auth/session")
    return response.json()
  }

  async signOut(): Promise<Response> {
    const csrfToken = await this.csrfToken()
    return this.request("/auth/signout", { form: { csrfToken } })
  }

  sessionCookie(name = "authjs.session-token"): string | undefined {
    return this.jar.get(name)?.value
  }
}

/** Collects what a test's logger received, to assert nothing secret was logged. */
export function captureLogger() {
  const lines: string[] = []
  const write = (...parts: unknown[]) => lines.push(parts.map((p) => (p instanceof Error ? `${p.name}: ${p.message}\n${p.stack}\n${JSON.stringify((p as any).cause ?? {}, replacer)}` : typeof p === "string" ? p : JSON.stringify(p, replacer))).join(" "))
  return {
    lines,
    logger: {
      error: (e: Error) => write(e),
      warn: (code: string, details?: unknown) => (details === undefined ? write(code) : write(code, details)),
      debug: (m: string, meta?: unknown) => write(m, meta),
    },
  }
}

function replacer(_k: string, v: unknown) {
  return v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v
}
