/**
 * What one SCIM request's handlers share: the directory, the endpoint's base URL, and the
 * helpers for retried writes and best-effort audit.
 * @module
 */
import type { ScimDirectory } from "./directory.js"
import { ScimError } from "./errors.js"

/** A request's context. */
export interface ScimContext {
  dir: ScimDirectory
  /** `https://app.example/auth/sso/scim/<connection id>/v2`, without a trailing slash. */
  baseUrl: string
  ifMatch: string | undefined
  now(): Date
}

/** How often a write that lost a version race is tried again (without `If-Match`) before answering 503. */
export const MAX_ATTEMPTS = 50

/** A short random pause between attempts, so racing writers fall out of step. */
export const backoff = () => new Promise<void>((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)))

export const busy = () => new ScimError(503, "The resource is being changed by other requests; retry", undefined, { "Retry-After": "1" })

/** Audit is told after the change is made; its failure is reported, never answered (the change stands). */
export async function audit(ctx: ScimContext, type: string, details: Record<string, string | number | boolean>): Promise<void> {
  try {
    await ctx.dir.audit(type, details)
  } catch (error) {
    ctx.dir.reportError?.(error)
  }
}
