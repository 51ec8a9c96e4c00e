import { createAuthClient, type AuthClient } from "../client.js"
import { AuthError, NotSignedIn, RateLimited, ServiceUnavailable } from "../errors.js"
import { raw as rawSymbol, skipCSRFCheck } from "../symbols.js"
import type { Cookie, ResponseInternal } from "../base-types.js"
import type { AuthConfig } from "../types.js"
import { configProblem, resolve, type ResolvedConfig } from "./config/resolve.js"
import { optionProblem } from "./config/problem.js"
import { processEnv, type Env } from "./config/env.js"
import { createContext, isSecure, type RequestContext } from "./context.js"
import { dispatch } from "./dispatch.js"
import { actionErrorResponse, asOutage, configErrorResponse, rateLimitedResponse, requestErrorResponse, unavailableResponse, wantsJson } from "./errors.js"
import { parseRequest, type BodyReader } from "./http/request.js"
import type { NodeAnswer, NodeIncoming, NodeOutgoing, NodePath, NodeRequest } from "./http/node.js"
import { report } from "./report.js"
import { auditRefusal } from "./audit/index.js"
import { privateJsonHeaders, toResponse } from "./http/response.js"
import { SessionCheckParser } from "./http/session-check.js"
import { sessionAnswers, type LookedUp, type Opening, type SessionAnswers } from "./session/answers.js"
import { refuseCrossSite, verifyCsrf } from "./csrf.js"
import { manageSessions, type SessionOperation, type SessionOperationResult } from "./session/manage.js"
import { originFromHeaders } from "./http/host.js"
import { accessToken, type AccessTokenParams } from "./tokens/access.js"
import { requireStepUp, stepUpState, type StepUpStatus } from "./step-up/gate.js"
import { currentSession } from "./step-up/session.js"
import type { AccessToken } from "./tokens/result.js"
import { refused, tracedAction } from "./telemetry/action.js"
import { causeOfError } from "./report.js"
import { loadRequestLocale } from "./i18n/index.js"
import { assertSupportedNode } from "./node-version.js"

/** How one request is handled; defaults come from the configuration (`raw`, `skipCSRFCheck`). */
export interface HandleOptions {
  /**
   * Return the internal response object instead of a `Response`, and rethrow
   * {@link AuthError}s: for server-side helpers of integrations.
   */
  raw?: boolean
  /** Skip the double-submit CSRF check: for framework form actions that check the origin themselves. */
  skipCSRF?: boolean
  /**
   * The address of the peer that sent the request, as the server's socket saw it (Node's
   * `req.socket.remoteAddress`, Express's `req.ip`): what rate limits count against when
   * `trustHost` is off, and what a new session records for the user's session list.
   * Integrations pass it here, never in a header, so a client cannot choose it.
   */
  clientAddress?: string
}

type Defaults = { raw: boolean; skipCSRF: boolean }
/** How `#answer` answers: `node` turns an internal response into a `NodeAnswer` where a `Response` would be built. */
type RunOptions = Defaults & { clientAddress?: string; node?: (internal: ResponseInternal, cookies: Cookie[], returnRedirect: boolean) => NodeAnswer }

/**
 * What a handler on Node gives `sessionCheck` for the checks the session lane cannot answer:
 * the whole request, built only then (its user agent and the client's address go into a
 * session extended on this check), and the client's address as `HandleOptions` takes it.
 * Its origin must be the one passed to `sessionCheck`, and it must carry no forwarded
 * headers (the integration judged them when it worked out the origin).
 */
export interface FullSessionCheck {
  request: () => Request
  clientAddress?: string
}

/**
 * One configuration, resolved once, with everything it owns: the checked options, the
 * narrowed adapter, its keys, caches and in-flight de-duplication (`ResolvedConfig`), and
 * the request engine (parse → check → act → respond). Every request of an app goes through
 * the same runtime — the fetch handler, server-side session reads, form actions — so they
 * share one set of caches, and two configurations in one process share nothing.
 *
 * Build it with {@link createAuth}; `Auth(request, config)` finds (or builds) the runtime
 * of a config object, so the Auth.js-style entry costs one `WeakMap` lookup per request.
 */
export class AuthRuntime {
  /** The resolved configuration, with the state it owns. */
  readonly config: ResolvedConfig
  readonly #defaults: Defaults
  readonly #sessionChecks: SessionCheckParser
  /** Core's Node path, built on the first Node request. */
  #node: Promise<NodePath> | undefined
  #nodeReady: NodePath | undefined
  #answers: SessionAnswers | undefined
  /** Whether a request has found the configuration free of problems (then it stays so). */
  #sound = false

  constructor(config: AuthConfig, env: Env = processEnv()) {
    assertSupportedNode()
    this.config = resolve(config, env)
    this.#defaults = { raw: config?.raw === rawSymbol, skipCSRF: config?.skipCSRFCheck === skipCSRFCheck }
    this.#sessionChecks = new SessionCheckParser(this.config)
    this.#answers = this.config.error ? undefined : sessionAnswers(this.config)
  }

  /** The base path the actions are served under, e.g. `/auth`. */
  get basePath(): string {
    return this.config.basePath
  }

  /**
   * The browser calls (`signIn`, `signOut`, `getSession`, …) for this configuration's base
   * path: what an integration hands to its client-side code. They run in the browser and
   * carry nothing of the configuration but the path.
   */
  browserClient(): AuthClient {
    return createAuthClient({ basePath: this.basePath })
  }

  /** Answers one request with a `Response` (the fetch handler). */
  handle(request: Request, options: Omit<HandleOptions, "raw"> = {}): Promise<Response> {
    return this.#run(request, { ...this.#defaults, ...options, raw: false }) as Promise<Response>
  }

  /**
   * Answers one request of a Node server: the answer `handle` gives, as a plain
   * {@link NodeAnswer} to write with `res.writeHead(status, headers).end(body)` (or let
   * {@link serveNode} write it). The body is read from `request.body` directly, and no Web
   * `Response` is built: on Node the `Request`/`Response` round trip costs more than most of
   * what core does for an answer. A session check is answered from the session lane without
   * building anything. Integrations on Node use it (`@portcullis/express`,
   * `handleNodeRequest` in `@portcullis/core/integration`); the code is loaded on the first
   * call (`lib/http/node.ts`).
   *
   * A malformed origin (`InvalidRequest` from `originFromHeaders`), a target or origin that
   * makes no URL, is core's 400; a method the Fetch API cannot carry (`TRACE`, `TRACK`,
   * `CONNECT`) its 405.
   *
   * @example
   * ```ts
   * const answer = await runtime.handleNode({ method: req.method, origin: { host: req.headers.host, protocol: "http", trustForwarded: false }, target: req.url, headers: req.headers, body: req })
   * res.writeHead(answer.status, answer.headers).end(answer.body)
   * ```
   */
  handleNode(request: NodeRequest, options?: Omit<HandleOptions, "raw" | "clientAddress">): Promise<NodeAnswer> {
    return this.#nodePath().then((path) => path.handle(request, options))
  }

  /**
   * {@link handleNode}, and the answer written to `res` with its `Content-Length`. Takes a
   * {@link NodeRequest}, or Node's request itself: then the origin is the `Host` the server
   * saw (`https` on a TLS socket) or, with `trustHost`, what a proxy forwarded, and the
   * client's address the socket's peer unless `options.clientAddress` says otherwise.
   */
  serveNode(request: NodeRequest | NodeIncoming, res: NodeOutgoing, options?: Omit<HandleOptions, "raw">): Promise<void> {
    // Once loaded, called straight away: a session check the lane answers is written before this returns.
    const ready = this.#nodeReady
    if (!ready) return this.#nodePath().then((path) => path.serve(request, res, options))
    // A throw comes out as a rejection, as from an async function: callers attach `.catch`.
    try {
      return ready.serve(request, res, options) ?? Promise.resolve()
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  /** Core's Node path for this runtime, built on first use: its code is not loaded before. */
  #nodePath(): Promise<NodePath> {
    return (this.#node ??= import("./http/node.js").then(
      ({ NodePath }) =>
        (this.#nodeReady = new NodePath(
          this.config,
          (origin, cookie) => this.#lane(origin, cookie),
          (web, options, body, begun) => this.#run(web, { ...this.#defaults, ...options, raw: false }, body, begun),
        )),
    ))
  }

  /** Answers one request with the internal response object; `AuthError`s are rethrown. */
  handleInternal(request: Request, options: Omit<HandleOptions, "raw"> = {}): Promise<ResponseInternal> {
    return this.#run(request, { ...this.#defaults, ...options, raw: true }) as Promise<ResponseInternal>
  }

  /**
   * A server-side session check (`readSession`: Express's `getSession(req)`, Next.js's
   * `auth()`, …) of `cookieHeader` on `origin`, answered without building a Web `Request`
   * when the session lane can: the JSON body the check would send (`"null"` when signed
   * out), with no cookie to set. Otherwise the internal response of the full check —
   * continuing from what the lane began (a token's decryption, a row's reading), so a store
   * is still asked once. The full check runs when the configuration has not been found
   * sound yet, has no lane (app code on every check), is traced (a span per check), or
   * when `origin` is not one a full request already worked out.
   *
   * `origin` must be one `originFromHeaders` or `originOfUrl` returned. `form: "response"`
   * gives the full check's answer as the `Response` the handler would send (for integrations
   * that read it with `sessionFromResponse`).
   */
  sessionCheck(origin: string, cookieHeader: string | null | undefined): string | Promise<string | ResponseInternal>
  sessionCheck(origin: string, cookieHeader: string | null | undefined, form: "response", full?: FullSessionCheck): string | Promise<string | Response>
  sessionCheck(origin: string, cookieHeader: string | null | undefined, form: "internal" | "response" = "internal", full?: FullSessionCheck): string | Promise<string | ResponseInternal | Response> {
    const options = { ...this.#defaults, raw: form === "internal", ...(full?.clientAddress !== undefined && { clientAddress: full.clientAddress }) }
    const request = () => (full ? full.request() : this.#sessionRequest(origin, cookieHeader))
    const pending = this.#lane(origin, cookieHeader || null)
    // No metric to count here: with an SDK registered (`telemetry.active`) reads take the
    // full check, span and counter included, exactly as they did before.
    if (pending === undefined) return this.#run(request(), options) as Promise<ResponseInternal | Response>
    const settle = (answer: string | LookedUp | Opening | undefined): string | Promise<ResponseInternal | Response> => {
      if (typeof answer === "string") return answer
      return this.#answer(request(), options, answer) as Promise<ResponseInternal | Response>
    }
    return pending instanceof Promise ? pending.then<string | ResponseInternal | Response>(settle) : settle(pending)
  }

  /**
   * The session lane's answer for `cookie` on `origin` (maybe pending), or `undefined` when it
   * cannot answer: the configuration not yet found sound, no lane (app code on every check),
   * traced (a span per check), or an origin no full request has worked out.
   */
  #lane(origin: string, cookie: string | null) {
    const answers = this.#answers
    const known = this.#sound && answers && !this.config.telemetry.active ? this.#sessionChecks.originOf(origin) : undefined
    return known && answers!.answer(cookie, isSecure(this.config, known.origin))
  }

  /** The request `readSession` hands the full check: the session path on `origin`, the cookie and nothing else. */
  #sessionRequest(origin: string, cookieHeader: string | null | undefined): Request {
    const headers = new Headers()
    if (cookieHeader) headers.set("cookie", cookieHeader)
    return new Request(`${origin}${this.basePath}/session`, { headers })
  }

  /** With the configuration's own defaults (`raw` and `skipCSRFCheck` as configured). */
  handleAsConfigured(request: Request): Promise<Response | ResponseInternal> {
    return this.#run(request, this.#defaults) as Promise<Response | ResponseInternal>
  }

  /**
   * Session management for the session of `request` (its cookies; for changes also its
   * `Origin` and a posted `csrfToken`, checked as core checks its own forms unless
   * `skipCSRF`). Lists, or revokes, only the sessions of the user signed in by that request.
   * Integrations call this through `@portcullis/core/integration` (`listSessions`, …).
   *
   * @throws NotSignedIn, SessionManagementUnsupported, MissingCSRF, ServiceUnavailable (the
   * store failed; nothing was reported done that was not)
   */
  async manageSessions(request: Request, operation: SessionOperation, options: Omit<HandleOptions, "raw"> = {}): Promise<SessionOperationResult> {
    const resolved = this.config
    const problem = await optionProblem(resolved)
    if (problem) throw problem
    await loadRequestLocale({ request, config: resolved })
    const ctx = createContext(await parseRequest(request, resolved), resolved, options.skipCSRF ?? this.#defaults.skipCSRF)
    try {
      if (operation.op !== "list") {
        // The origin is checked even when the token check is skipped (a framework action):
        // ending someone's sessions from another site is the attack this stops.
        refuseCrossSite(ctx)
        await verifyCsrf(ctx)
      }
      // Ending another session is a sensitive action (docs/step-up.md): a stolen cookie must
      // not evict the owner — everywhere at once, or one listed session after another. Ending
      // the request's own session is a sign-out and needs nothing more.
      if (operation.op === "revokeOthers" || operation.op === "signOutEverywhere") await requireStepUp(ctx)
      else if (operation.op === "revoke" && (await currentSession(ctx))?.id !== operation.id) await requireStepUp(ctx)
      const result = await manageSessions(ctx, operation)
      return { ...result, cookies: [...ctx.setCookies, ...result.cookies] }
    } catch (thrown) {
      const error = asOutage(thrown)
      if (error !== thrown) report(resolved, error)
      throw error
    }
  }

  /**
   * The user of the session of `request`, for the server functions of account actions
   * (`@portcullis/core/integration`: two-factor enrollment, `requireStepUp`). With `change`
   * the request is checked as core checks its own forms (origin, and the posted `csrfToken`
   * unless `skipCSRF`); with `stepUp` the session must have proven a first factor within
   * `stepUp.maxAge` (docs/step-up.md).
   *
   * @throws NotSignedIn, StepUpRequired, MissingCSRF, ServiceUnavailable (a store failed:
   * refused, never allowed)
   */
  async sessionUser(request: Request, need: { change: boolean; stepUp: boolean }, options: Omit<HandleOptions, "raw"> = {}): Promise<{ userId: string; email?: string; address?: string }> {
    return this.#guarded(request, options, async (ctx) => {
      if (need.change) {
        refuseCrossSite(ctx)
        await verifyCsrf(ctx)
      }
      const session = need.stepUp ? await requireStepUp(ctx) : await currentSession(ctx)
      if (!session) throw new NotSignedIn("No valid session in this request")
      // The client's address too: the two-factor caps count guesses per address as well as per user.
      return { userId: session.userId, ...(session.email && { email: session.email }), ...(ctx.clientAddress && { address: ctx.clientAddress }) }
    })
  }

  /**
   * The server functions of the configuration's extensions, by id, bound to `request` (the
   * browser's request as an integration sees it: its origin and headers, and its method —
   * anything but `GET`/`HEAD` is a change, refused when another site sent it). Each call's
   * store outage comes out as `ServiceUnavailable` (logged once), never a raw driver error.
   */
  async extensionFunctions(request: { origin: string; headers: Headers; method?: string; csrfToken?: string }, options: Omit<HandleOptions, "raw"> = {}): Promise<Record<string, unknown>> {
    const problem = await configProblem(this.config)
    if (problem) throw problem
    // Loaded on use: only configurations with extensions call it (and it loads their tools).
    return (await import("./extensions/functions.js")).extensionFunctions(this.config, request, { skipCSRF: options.skipCSRF ?? this.#defaults.skipCSRF, clientAddress: options.clientAddress })
  }

  /** Whether the session of `request` is signed in and stepped up, and until when (docs/step-up.md). */
  stepUpStatus(request: Request): Promise<StepUpStatus> {
    return this.#guarded(request, {}, (ctx) => stepUpState(ctx))
  }

  /** Runs `act` on the context of `request` once the configuration is sound; a store failure comes out as `ServiceUnavailable` (logged). */
  async #guarded<T>(request: Request, options: Omit<HandleOptions, "raw">, act: (ctx: RequestContext) => Promise<T>): Promise<T> {
    const resolved = this.config
    const problem = await configProblem(resolved)
    if (problem) throw problem
    await loadRequestLocale({ request, config: resolved })
    const ctx = createContext(await parseRequest(request, resolved), resolved, options.skipCSRF ?? this.#defaults.skipCSRF, options.clientAddress)
    try {
      return await act(ctx)
    } catch (thrown) {
      const error = asOutage(thrown)
      if (error !== thrown) report(resolved, error)
      throw error
    }
  }

  /**
   * A valid access token of the user's account with an OAuth/OIDC provider, refreshed when
   * it expires within `tokenRefresh.skew`: see `getAccessToken` in `@portcullis/core`.
   */
  getAccessToken(params: AccessTokenParams): Promise<AccessToken> {
    return accessToken(this.config, params, async (request) => {
      const headers = new Headers()
      const cookie = request.headers.get("cookie")
      if (cookie) headers.set("cookie", cookie)
      const parsed = new URL(request.url)
      const origin = originFromHeaders({ host: parsed.host, protocol: parsed.protocol, trustForwarded: false })
      const url = `${origin}${this.basePath}/session`
      return createContext(await parseRequest(new Request(url, { headers }), this.config), this.config)
    })
  }

  #run(request: Request, options: RunOptions, nodeBody?: BodyReader, begun?: LookedUp | Opening): Promise<Response | ResponseInternal | NodeAnswer> {
    // Inactive unless an OpenTelemetry SDK was registered (lib/telemetry/): then a span and a
    // duration per request; otherwise this one check is all the session lane pays.
    const telemetry = this.config.telemetry
    return telemetry.active ? tracedAction(this.config, request, () => this.#answer(request, options, begun, nodeBody)) : this.#answer(request, options, begun, nodeBody)
  }

  async #answer(request: Request, options: RunOptions, begun?: LookedUp | Opening, nodeBody?: BodyReader): Promise<Response | ResponseInternal | NodeAnswer> {
    const resolved = this.config
    // A configuration's problems are all known once its provider kinds have loaded: after
    // one request found none, there are none, and no later request waits for the answer.
    if (!this.#sound) {
      const problem = await configProblem(resolved)
      // Loaded only then: a configuration that works never needs it.
      if (problem) return (await import("./broken-config.js")).brokenConfigAnswer(resolved, request, problem, options.raw)
      this.#sound = true
      // Extensions with session fields read their store on every check (set up by now): no token-only answers then.
      if (resolved.extensions.inSession.length) this.#answers = undefined
    }
    // Most requests are session checks from an origin already worked out: parsed from the
    // URL string, and — when the token alone decides the answer and is already verified —
    // answered from the verified-token cache (`session/answers.ts`).
    const known = this.#sessionChecks.origin(request)
    // What the lane began but left to the full check — a token's decryption, a row's
    // reading, whatever their outcome — so a token is decrypted, and the store asked, once.
    let handoff: LookedUp | Opening | undefined = begun
    // (A Node request's session check asked the lane before it came here: `NodePath.handle`.)
    if (known && this.#answers && !options.raw && !options.node && !begun) {
      const pending = this.#answers.answer(request.headers.get("cookie"), isSecure(resolved, known.origin))
      const answer = pending instanceof Promise ? await pending : pending
      if (typeof answer === "string") {
        if (resolved.telemetry.metering) resolved.telemetry.sessionCheck(answer === "null" ? "none" : "valid")
        return new Response(answer, { headers: privateJsonHeaders })
      }
      handoff = answer
    }
    const returnRedirect = request.headers.has("x-auth-return-redirect")
    const finish = (internal: ResponseInternal, cookies = internal.cookies ?? []) =>
      options.raw ? { ...internal, cookies } : options.node ? options.node(internal, cookies, returnRedirect) : toResponse(internal, cookies, returnRedirect)

    // Pages, emails and error pages read the request's language synchronously: its catalog
    // is loaded first, once per language (lib/i18n/index.ts).
    await loadRequestLocale({ request, config: resolved })
    let ctx
    try {
      const parsed = known ? this.#sessionChecks.parsed(request, known) : parseRequest(request, resolved, nodeBody)
      ctx = createContext(parsed instanceof Promise ? await parsed : parsed, resolved, options.skipCSRF, options.clientAddress)
      if (handoff) {
        if ("opening" in handoff) ctx.opened = handoff
        else ctx.lookedUp = handoff
      }
    } catch (error) {
      // A body that does not parse, a method or action that does not exist: the client's doing.
      report(resolved, error)
      const response = requestErrorResponse(error) ?? configErrorResponse(resolved, { action: undefined, method: "POST", origin: undefined })
      // On a `cors` route's path, readable by the script that sent it (loaded only then).
      if (resolved.extensions.byId.size === 0) return finish(response)
      const { withPathCors } = await import("./extensions/cors.js")
      return finish(withPathCors(response, request.url, request.method, resolved.basePath, resolved.extensions.byId))
    }

    try {
      const internal = await dispatch(ctx)
      if (resolved.telemetry.metering && ctx.action === "session" && ctx.method === "GET") resolved.telemetry.sessionCheck(internal.body == null ? "none" : "valid")
      // Most answers (a session check) add no cookie on either side: no array to build then.
      const cookies = ctx.setCookies.length ? [...ctx.setCookies, ...(internal.cookies ?? [])] : (internal.cookies ?? [])
      return finish(internal, cookies)
    } catch (thrown) {
      const error = asOutage(thrown)
      // Logged by cause (lib/report.ts): a client's refusal as a rate-limited warning, an
      // outage once with its chain and then counted, only a bug as an error with its stack.
      // One line per refused request let a client, or a stopped store, flood the log.
      report(resolved, error)
      if (resolved.telemetry.active) {
        // The action's span says why it failed (the error's type); a refusal the client
        // caused is an outcome, not a fault, so only outages and bugs mark it an error.
        const cause = causeOfError(error)
        refused(resolved.telemetry, error, cause === "outage" || cause === "bug")
        if (ctx.action === "session" && ctx.method === "GET") resolved.telemetry.sessionCheck("error")
      }
      await auditRefusal(ctx, error)
      if (options.raw && error instanceof AuthError && !returnRedirect) throw error
      // A session check during an outage must not read as "signed out" (`200 null`).
      if (error instanceof ServiceUnavailable && ctx.action === "session") return finish(unavailableResponse(error))
      if (error instanceof RateLimited && wantsJson(ctx, returnRedirect)) {
        return finish(rateLimitedResponse(error, returnRedirect ? (await actionErrorResponse(ctx, error)).redirect : undefined))
      }
      if (ctx.action === "session" && ctx.method === "POST") {
        return finish({ status: 400, headers: { "Content-Type": "application/json" }, body: null })
      }
      const direct = requestErrorResponse(error)
      if (direct) return finish(direct)
      // Cookies gathered before the failure are dropped, except deletions of one-time checks.
      const deletions = ctx.setCookies.filter((c) => c.options.maxAge === 0)
      const response = await actionErrorResponse(ctx, error)
      if (error instanceof RateLimited) response.headers = { "Retry-After": String(error.retryAfter) }
      // fetch-based clients get the error page's URL with a 503, not a `200 {url}` that looks like success.
      if (error instanceof ServiceUnavailable && returnRedirect) return finish(unavailableResponse(error, response.redirect), deletions)
      return finish(response, deletions)
    }
  }
}


/**
 * The runtime of each configuration object `Auth(request, config)` has seen. This registry
 * is the one piece of module-level state in core, and only because Auth.js's entry point
 * takes a plain config on every call: it maps a config object to the runtime that owns
 * that config's state (a `WeakMap`, so a config that is dropped takes its runtime along).
 */
const registry = new WeakMap<AuthConfig, AuthRuntime>()

/** The runtime of `config`, built on first use. */
export function runtimeFor(config: AuthConfig | AuthRuntime): AuthRuntime {
  if (config instanceof AuthRuntime) return config
  // Not an object (a JavaScript caller's mistake): no key for the registry; the runtime
  // answers the configuration error.
  if (!config || typeof config !== "object") return new AuthRuntime(config)
  let runtime = registry.get(config)
  if (!runtime) {
    runtime = new AuthRuntime(config)
    registry.set(config, runtime)
  }
  return runtime
}
