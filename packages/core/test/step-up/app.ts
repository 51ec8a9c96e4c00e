/**
 * The app the step-up tests attack: password accounts (and passkeys) with two-factor
 * enrollment and session management on account routes, the way an app's settings pages
 * call `@portcullis/core/integration` — behind a real `node:http` server.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import {
  confirmTwoFactor,
  disableTwoFactor,
  regenerateTwoFactorBackupCodes,
  requireStepUp,
  revokeOtherSessions,
  signOutEverywhere,
  startTwoFactor,
  stepUpStatus,
} from "@portcullis/core/integration"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../helpers.js"
import { sendResponse, toWebRequest, type TestServer } from "../http-server.js"
import { LIGHT, seedUser } from "../password/support.js"

export const ada = { email: "ada@example.com", password: "ada's rather long passphrase" }

export const quiet = { error() {}, warn() {}, debug() {} }

/** Password accounts, passkeys, 2FA, a five-guess lockout; `extra` on top. */
export function stepUpConfig(adapter: Adapter, extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [Password({ hashing: LIGHT }), Passkey],
    twoFactor: {},
    rateLimit: { perIdentifier: { credentials: { max: 5, window: 900, maxLockout: 900 } } },
    logger: quiet,
    ...extra,
  }
}

const statusOf: Record<string, number> = { StepUpRequired: 403, NotSignedIn: 401, MissingCSRF: 403, ServiceUnavailable: 503 }

/** The app's account routes: each posts the form's `csrfToken`; errors answer `{ error: <type> }`. */
async function account(request: Request, config: AuthConfig): Promise<Response> {
  const url = new URL(request.url)
  const form = request.method === "POST" ? Object.fromEntries(new URLSearchParams(await request.text())) : {}
  const browser = { origin: url.origin, headers: request.headers, ...(form.csrfToken && { csrfToken: form.csrfToken }) }
  const code = form.code ?? ""
  try {
    switch (url.pathname) {
      case "/account/2fa/start":
        return Response.json(await startTwoFactor(browser, config))
      case "/account/2fa/confirm":
        return Response.json(await confirmTwoFactor({ ...browser, code }, config))
      case "/account/2fa/disable":
        return Response.json(await disableTwoFactor({ ...browser, code }, config) ?? { disabled: true })
      case "/account/2fa/regenerate":
        return Response.json(await regenerateTwoFactorBackupCodes({ ...browser, code }, config))
      case "/account/sessions/revoke-others":
        return Response.json({ revoked: await revokeOtherSessions(browser, config) })
      case "/account/sessions/everywhere":
        return Response.json({ revoked: await signOutEverywhere(browser, config) })
      case "/account/delete":
        // An app's own sensitive action behind the public gate.
        return Response.json(await requireStepUp(browser, config))
      case "/account/step-up":
        return Response.json(await stepUpStatus(browser, config))
    }
    return new Response("Not found", { status: 404 })
  } catch (error) {
    const type = (error as { type?: string }).type ?? "Error"
    return Response.json({ error: type }, { status: statusOf[type] ?? 400 })
  }
}

export interface StepUpApp extends TestServer {
  config: AuthConfig
  adapter: Adapter
  userId: string
  browser(address?: string): Browser
}

/** Starts the app with Ada's password account on `adapter`. */
export async function stepUpApp(extra: Partial<AuthConfig> = {}, adapter: Adapter = MemoryAdapter(), seed = true): Promise<StepUpApp> {
  const config = stepUpConfig(adapter, extra)
  const userId = seed ? (await seedUser(adapter, ada)).id : ""
  const server: Server = createServer((req, res) => {
    const request = toWebRequest(req)
    const answer = new URL(request.url).pathname.startsWith("/auth") ? Auth(request, config) : account(request, config)
    answer.then((response) => sendResponse(res, response)).catch((error: unknown) => {
      res.statusCode = 500
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  const transport = (request: Request) => fetch(request, { redirect: "manual" })
  return {
    origin,
    port,
    server,
    transport,
    config,
    adapter,
    userId,
    browser: (address?: string) => new Browser(address ? (request) => transport(withForwardedFor(request, address)) : transport, origin),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function withForwardedFor(request: Request, address: string): Request {
  const headers = new Headers(request.headers)
  headers.set("x-forwarded-for", address)
  return new Request(request, { headers })
}

/** A password sign-in; the browser comes out signed in (and, being fresh, stepped up). */
export async function signIn(browser: Browser, password = ada.password): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  return browser.request("/auth/callback/password", { form: { email: ada.email, password, csrfToken } })
}

/** Posts the password to the re-authentication endpoint; the response and its `?error=`. */
export async function reauthenticate(browser: Browser, password: string, callbackUrl = "/account") {
  const csrfToken = await browser.csrfToken()
  const response = await browser.request("/auth/reauthenticate", { form: { password, csrfToken, callbackUrl } })
  const location = response.headers.get("location")
  return { response, location, error: location ? new URL(location).searchParams.get("error") : null }
}

/** Posts to an account route with the form's CSRF token; the status and the JSON answer. */
export async function act(browser: Browser, path: string, fields: Record<string, string> = {}) {
  const csrfToken = await browser.csrfToken()
  const response = await browser.request(path, { form: { csrfToken, ...fields } })
  return { status: response.status, body: (await response.json()) as any }
}

/** A second browser holding a copy of `browser`'s cookies (a stolen session). */
export function copyOf(browser: Browser): Browser {
  const thief = new Browser(browser.transport, browser.origin)
  for (const [name, cookie] of browser.jar) thief.jar.set(name, { ...cookie })
  return thief
}
