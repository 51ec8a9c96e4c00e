/**
 * The claims extensions keep in a JWT session token (`session.claims`): computed at sign-in,
 * sign-up and `update()`, each within its extension's byte budget.
 * @module
 */
import { AdapterError, InvalidConfig, ServiceUnavailable } from "../../errors.js"
import type { ResolvedConfig } from "../config/resolved.js"
import type { Json } from "./api.js"

/** The claim extensions' claims live under, one entry per extension id. */
export const EXTENSION_CLAIM = "pcl_x"

/**
 * The app's `jwt` callback, followed by the extensions' claims at sign-in, sign-up and
 * `update()`: each extension's claims are JSON within its budget, or left out (logged) —
 * a cookie that outgrows what browsers keep would sign everyone out.
 */
export function withExtensionClaims(config: Pick<ResolvedConfig, "extensions" | "logger">, jwt: ResolvedConfig["callbacks"]["jwt"]): ResolvedConfig["callbacks"]["jwt"] {
  const withClaims = config.extensions.inSession.filter((e) => e.extension.session?.claims)
  if (!withClaims.length) return jwt
  return async (params) => {
    const token = await jwt(params)
    if (!token || (params.trigger !== "signIn" && params.trigger !== "signUp" && params.trigger !== "update")) return token
    const userId = params.user?.id ?? token.sub
    if (typeof userId !== "string" || !userId) return token
    const out: Record<string, Json> = { ...((token[EXTENSION_CLAIM] as Record<string, Json> | undefined) ?? {}) }
    for (const { extension, locals, budget } of withClaims) {
      try {
        const value = await extension.session!.claims!({ userId, locals })
        if (value === undefined) {
          delete out[extension.id]
          continue
        }
        const bytes = new TextEncoder().encode(JSON.stringify(value)).length
        if (bytes > budget) {
          config.logger.error(new InvalidConfig(`The ${extension.id} extension's session claims take ${bytes} bytes, over its budget of ${budget}: left out of the token`))
          delete out[extension.id]
        } else out[extension.id] = value
      } catch (error) {
        if (error instanceof AdapterError || error instanceof ServiceUnavailable) throw error
        config.logger.error(new InvalidConfig(`The ${extension.id} extension's session claims failed`, error as Error))
      }
    }
    return { ...token, [EXTENSION_CLAIM]: out }
  }
}
