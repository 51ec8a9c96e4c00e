/**
 * The resolved extensions' shapes (`ResolvedConfig.extensions`), apart from the resolver
 * (`resolve.ts`) that builds them: `config/resolved.ts` names them, and importing them from
 * here ties it to nothing the resolver imports (the router's table among them).
 * @module
 */
import type { Extension, ExtensionRoute } from "./api.js"

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

/** The configuration's extensions (`ResolvedConfig.extensions`). */
export interface ResolvedExtensions {
  byId: ReadonlyMap<string, ResolvedExtension>
  /** Those that add session fields or claims: a session check asks only these. */
  inSession: readonly ResolvedExtension[]
}

