import { createAuthClient, type AuthClient } from "../client.js"
import { AuthError, ServiceUnavailable } from "../errors.js"
import { raw as rawSymbol, skipCSRFCheck } from "../symbols.js"
import type { ResponseInternal } from "../base-types.js"
import type { AuthConfig } from "../types.js"
import { resolve, type ResolvedConfig } from "./config/resolve.js"
import { processEnv, type Env } from "./config/env.js"
import { createContext } from "./context.js"
import { dispatch } from "./dispatch.js"
import { actionErrorResponse, asOutage, configErrorResponse, requestErrorResponse, unavailableResponse } from "./errors.js"
import { parseRequest } from "./http/request.js"
import { toResponse } from "./http/response.js"

/** How one request is handled; defaults come from the configuration (`raw`, `skipCSRFCheck`). */
export interface HandleOptions {
  /**
   * Return the internal response object instead of a `Response`, and rethrow
   * {@link AuthError}s: for server-side helpers of integrations.
   */
  raw?: boolean
  /** Skip the double-submit CSRF check: for framework form actions that check the origin themselves. */
  skipCSRF?: boolean
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
  readonly #defaults: Required<HandleOptions>

  constructor(config: AuthConfig, env: Env = processEnv()) {
    this.config = resolve(config, env)
    this.#defaults = { raw: config?.raw === rawSymbol, skipCSRF: config?.skipCSRFCheck === skipCSRFCheck }
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

  /** Answers one request with the internal response object; `AuthError`s are rethrown. */
  handleInternal(request: Request, options: Omit<HandleOptions, "raw"> = {}): Promise<ResponseInternal> {
    return this.#run(request, { ...this.#defaults, ...options, raw: true }) as Promise<ResponseInternal>
  }

  /** With the configuration's own defaults (`raw` and `skipCSRFCheck` as configured). */
  handleAsConfigured(request: Request): Promise<Response | ResponseInternal> {
    return this.#run(request, this.#defaults)
  }

  async #run(request: Request, options: Required<HandleOptions>): Promise<Response | ResponseInternal> {
    const resolved = this.config
    const { logger } = resolved
    const returnRedirect = request.headers.has("x-auth-return-redirect")
    const finish = (internal: ResponseInternal, cookies = internal.cookies ?? []) =>
      options.raw ? { ...internal, cookies } : toResponse(internal, cookies, returnRedirect)

    if (resolved.error) {
      logger.error(resolved.error)
      const url = safeUrl(request.url)
      return finish(
        configErrorResponse(resolved, {
          action: url && actionOf(url, resolved.basePath),
          method: request.method.toUpperCase(),
          origin: resolved.siteUrl?.origin ?? url?.origin,
          callbackUrl: url?.searchParams.get("callbackUrl"),
          pathname: url?.pathname,
        }),
      )
    }

    let ctx
    try {
      const parsed = parseRequest(request, resolved)
      ctx = createContext(parsed instanceof Promise ? await parsed : parsed, resolved, options.skipCSRF)
    } catch (error) {
      logger.error(error as Error)
      const response = requestErrorResponse(error) ?? configErrorResponse(resolved, { action: undefined, method: "POST", origin: undefined })
      return finish(response)
    }

    try {
      const internal = await dispatch(ctx)
      // Most answers (a session check) add no cookie on either side: no array to build then.
      const cookies = ctx.setCookies.length ? [...ctx.setCookies, ...(internal.cookies ?? [])] : (internal.cookies ?? [])
      return finish(internal, cookies)
    } catch (thrown) {
      const error = asOutage(thrown)
      logger.error(error as Error)
      if (options.raw && error instanceof AuthError && !returnRedirect) throw error
      // A session check during an outage must not read as "signed out" (`200 null`).
      if (error instanceof ServiceUnavailable && ctx.action === "session") return finish(unavailableResponse(error))
      if (ctx.action === "session" && ctx.method === "POST") {
        return finish({ status: 400, headers: { "Content-Type": "application/json" }, body: null })
      }
      const direct = requestErrorResponse(error)
      if (direct) return finish(direct)
      // Cookies gathered before the failure are dropped, except deletions of one-time checks.
      const deletions = ctx.setCookies.filter((c) => c.options.maxAge === 0)
      const response = await actionErrorResponse(ctx, error)
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

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

function actionOf(url: URL, basePath: string): string | undefined {
  const path = url.pathname
  return path.startsWith(basePath) ? path.slice(basePath.length).split("/").filter(Boolean)[0] : undefined
}
