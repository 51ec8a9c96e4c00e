/**
 * The resolved extensions' shapes (`ResolvedConfig.extensions`), apart from the resolver
 * (`resolve.ts`) that builds them: `config/resolved.ts` names them, and importing them from
 * here ties it to nothing the resolver imports (the router's table among them).
 * @module
 */
import type { Extension, ExtensionRoute, ExtensionTools } from "./api.js"
import type { AuthError } from "../../errors.js"

/** A route ready for matching. */
export interface CompiledRoute {
  route: ExtensionRoute<unknown>
  /** Literal segments, or `{ param }` for `:name`. */
  segments: Array<string | { param: string }>
  /** For limits and logs: `POST invitations/:id/accept`. */
  name: string
}

/** One extension of a configuration, set up. */
export interface ResolvedExtension {
  extension: Extension<string, unknown, unknown>
  locals: unknown
  routes: CompiledRoute[]
  budget: number
}

/**
 * The configuration's extensions (`ResolvedConfig.extensions`). Their code is loaded with
 * `import()` when the configuration is resolved, and only when it has extensions (an app
 * without any loads none of it at startup); `checked` settles once they are set up, with
 * the first problem — the runtime awaits it before any request (`configProblem`), so the
 * maps are filled by the time anything reads them.
 */
export interface ResolvedExtensions {
  byId: Map<string, ResolvedExtension>
  /** Those that add session fields or claims: a session check asks only these. */
  inSession: ResolvedExtension[]
  /** Those with a `signInRoute`: the identifier-first page asks them at "Continue". */
  routing: ResolvedExtension[]
  /** The OIDC providers extensions named (`req.oidc`, `oidc.ts`), remembered for their discovered metadata. */
  oidc: Map<string, unknown>
  /** Settles once the extensions are set up: their first problem, or `undefined`. */
  checked: Promise<AuthError | undefined>
  /**
   * The tools of a call (`tools.ts`), set once loaded: what server functions are given. Its
   * `ctx` is a `RequestContext`, named loosely here so this leaf imports no module with code.
   */
  toolsFor?(ctx: never, extension: ResolvedExtension): ExtensionTools
  /**
   * Set when an extension has a `signInGate` (`gate.ts`): `establishSession` calls it before
   * the session (no `cookies`) and after (the new session's `cookies`, ended on a refusal).
   */
  gate?(ctx: object, result: object, cookies?: readonly object[]): Promise<void>
  /**
   * Set with `gate` (`gate.ts`): the same gates, asked before a sign-in writes anything (its
   * new user, without a `userId`; an account or passkey linked to a user) — `admitSignIn` in
   * login.ts. Throws `AccountSuspended` on a refusal.
   */
  admit?(entrant: { userId?: string | undefined; email?: string | null | undefined; provider?: string | undefined }): Promise<void>
  /**
   * The extension action (`handle.ts`), once loaded by `dispatch.ts`: an extension route (a
   * token endpoint, userinfo) is a hot path, and every `import()` — even of a loaded module —
   * goes through the ESM loader's resolution again. Kept here, per configuration, not in a
   * module binding. `ctx` is a `RequestContext`, named loosely for the same reason as `toolsFor`.
   */
  action?: Promise<(ctx: never) => Promise<unknown>>
}

