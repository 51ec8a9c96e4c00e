/**
 * Impersonation, the console's half: who may (an admin, re-authenticated, not themselves
 * impersonated, of a user who is neither an admin nor banned), the record of it under the
 * impersonated session's key (its end, who started it), the banner's field and the hard end.
 * Core makes and swaps the sessions (`admin.impersonate`, `admin.endImpersonation`).
 * @module
 */
import { ExtensionRequestError, type ExtensionAuditInput, type Cookie, type ExtensionBannerInput, type SafeHtml, type ExtensionSession, type ExtensionTools, type Json } from "@portcullis/core/extension"
import type { AdminCaller } from "./access.js"
import type { AdminLocals } from "./locals.js"
import type { Impersonation } from "./store/impersonations.js"
import { impersonationBanner } from "./banner.js"

/** What the session answer carries while impersonating (`session.admin`). */
export interface ImpersonationField {
  impersonatedBy: { id: string; email: string | null }
  /** ISO date: the hard end. */
  until: string
}

/** The record of the session, when it is an impersonation that still runs. */
export async function runningImpersonation(locals: AdminLocals, session: ExtensionSession, now = Date.now()): Promise<Impersonation | null> {
  const record = locals.impersonation ? await locals.impersonation.store.get(session.key) : null
  return record && record.endedAt === null && record.until.getTime() > now ? record : null
}

/** `session.fields`: the banner's data, `{ impersonatedBy, until }`, while impersonating. */
export async function impersonationFields({ session, locals }: { session: ExtensionSession; locals: AdminLocals }): Promise<Json | undefined> {
  const record = await runningImpersonation(locals, session)
  if (!record) return undefined
  return { impersonatedBy: { id: record.by.id, email: record.by.email }, until: record.until.toISOString() } satisfies ImpersonationField
}

/**
 * `session.valid`: an impersonated session past its end (or ended) is refused — however
 * active it is, on every instance reading the store. The refusal ends it (core deletes the
 * row or registry entry and clears the cookie), so the expiry is audited once per session
 * in practice (a JWT session without a registry cannot be deleted: its copies stay refused).
 */
export async function impersonationValid({ session, locals, audit }: { session: ExtensionSession; locals: AdminLocals; audit(event: ExtensionAuditInput): Promise<void> }): Promise<boolean> {
  const record = locals.impersonation ? await locals.impersonation.store.get(session.key) : null
  if (!record) return true
  if (record.endedAt !== null) return false
  if (record.until.getTime() > Date.now()) return true
  await audit({ type: "impersonationExpired", outcome: "success", userId: record.userId, actor: record.by.id, details: { until: record.until.toISOString() } })
  return false
}

/** The impersonation options, or 409 `unsupported` when the console was configured without them. */
export function impersonationOf(locals: AdminLocals): NonNullable<AdminLocals["impersonation"]> {
  if (!locals.impersonation) throw new ExtensionRequestError("unsupported", "Impersonation is not configured (the impersonation option of admin())", 409)
  return locals.impersonation
}

/**
 * Starts impersonating `target` as `caller`: the record is stored (with its hard end) as
 * core makes the session, before any cookie is set — a store failure leaves the admin as
 * they were. Audited as `admin.impersonationStarted`, the admin as `actor`.
 */
export async function startImpersonation(call: ExtensionTools, locals: AdminLocals, caller: AdminCaller, target: { id: string }): Promise<{ until: Date; cookies: Cookie[] }> {
  const { store, maxAge } = impersonationOf(locals)
  const startedAt = new Date()
  const until = new Date(startedAt.getTime() + maxAge * 1000)
  const record: Impersonation = { userId: target.id, by: { id: caller.user.id, email: caller.user.email ?? null }, startedAt, until, endedAt: null }
  let started
  try {
    started = await call.admin.impersonate({
      userId: target.id,
      // Kept while the session could be alive: it can be refused only while its record exists.
      // A session idle for maxAge lapses by itself, so its end plus that is long enough.
      record: (key, expires) => store.put(key, record, until.getTime() - Date.now() + (expires.getTime() - Date.now())),
    })
  } catch (error) {
    await call.audit({ type: "impersonationStarted", outcome: "failure", userId: target.id, actor: caller.user.id })
    throw error
  }
  await call.audit({ type: "impersonationStarted", outcome: "success", userId: target.id, actor: caller.user.id, details: { until: until.toISOString() } })
  return { until, cookies: started.cookies }
}

/**
 * Ends the request's impersonation: the record marked ended (so a copy of the session is
 * refused too), the session ended, the admin's own restored when still valid. Audited as
 * `admin.impersonationEnded`, the admin as `actor`. `not-impersonating` (409) for a session
 * that is no impersonation.
 */
export async function finishImpersonation(call: ExtensionTools, locals: AdminLocals): Promise<{ userId: string | null; restored: boolean; cookies: Cookie[] }> {
  const { store } = impersonationOf(locals)
  const session = await call.session()
  const record = session ? await store.get(session.key) : null
  if (session && !record) throw new ExtensionRequestError("not-impersonating", "This session is no impersonation", 409)
  if (session && record && record.endedAt === null) {
    const keep = Math.max(1, record.until.getTime() - Date.now() + (session.expires.getTime() - Date.now()))
    await store.put(session.key, { ...record, endedAt: new Date() }, keep)
  }
  const ended = await call.admin.endImpersonation()
  if (!session && ended.impersonator === null) throw new ExtensionRequestError("not-impersonating", "This session is no impersonation", 409)
  const actor = record?.by.id ?? ended.impersonator ?? undefined
  await call.audit({ type: "impersonationEnded", outcome: "success", ...(record && { userId: record.userId }), ...(actor && { actor }), details: { restored: ended.restored !== null } })
  return { userId: record?.userId ?? null, restored: ended.restored !== null, cookies: ended.cookies }
}

/** `banner`: atop every extension page (the account center, the console) while impersonating. */
export async function impersonationBannerOf(input: ExtensionBannerInput<AdminLocals>): Promise<SafeHtml | undefined> {
  const record = await runningImpersonation(input.locals, input.session)
  if (!record) return undefined
  const field = { impersonatedBy: record.by, until: record.until.toISOString() }
  return impersonationBanner(input, field, input.session.email ?? input.session.userId, await input.csrfToken())
}
