/**
 * The extension API (docs/extensions.md): what organizations, the admin console, enterprise
 * SSO and the OpenID Provider are built on, and what an app's own extension uses the same
 * way. An extension adds routes under the base path (core applies CSRF, origin trust, rate
 * limits and the session checks before its handler runs), keeps its data in a store core
 * wraps (bounded, outages logged once and answered 503), adds fields to the session and
 * claims to the JWT (within a byte budget), handles core's events and emits audit events,
 * renders pages in the configuration's theme and language, and offers server functions that
 * every integration exposes under its id.
 *
 * @example
 * ```ts
 * import { defineExtension, html, ExtensionRequestError } from "@portcullis/core/extension"
 *
 * export const notes = defineExtension({
 *   id: "notes",
 *   setup: (host) => ({ store: host.wrapStore("notes", new Map<string, string>()) }),
 *   messages: { en: { saved: "Saved, {name}" } },
 *   routes: [
 *     {
 *       method: "POST",
 *       path: "",
 *       async handler(req) {
 *         const session = await req.requireSession()
 *         if (typeof req.body.text !== "string") throw new ExtensionRequestError("invalid", "text is required")
 *         req.locals.store.set(session.userId, req.body.text)
 *         await req.audit({ type: "saved", outcome: "success", userId: session.userId })
 *         return { json: { ok: true } }
 *       },
 *     },
 *     { method: "GET", path: "", answers: "page", handler: (req) => req.page("Notes", html`<h1>${req.t("saved", { name: "Ada" })}</h1>`) },
 *   ],
 *   server: (call) => ({ async mine() { const s = await call.requireSession(); return call.locals.store.get(s.userId) ?? null } }),
 * })
 * ```
 * @module
 */
import type { Extension, ExtensionEventHandlers } from "./lib/extensions/api.js"
import type { EventCallbacks } from "./types.js"

export type {
  Extension,
  ExtensionCall,
  ExtensionEventHandlers,
  ExtensionFunctions,
  ExtensionHost,
  ExtensionMail,
  ExtensionRateLimit,
  ExtensionRequest,
  ExtensionResponse,
  ExtensionRoute,
  ExtensionSession,
  ExtensionSessionHooks,
  ExtensionTools,
  ExtensionAuditInput,
  ExtensionSignInGateInput,
  ExtensionBannerInput,
  ExtensionAccountSection,
  ExtensionAccountSectionEntry,
  ExtensionAccountSectionInput,
  ExtensionSignInVerdict,
  ExtensionSignInRoute,
  ExtensionSignInRouteInput,
  ExtensionIdentity,
  ExtensionOidc,
  ExtensionOidcClient,
  ExtensionOidcResult,
  ExtensionSignIn,
  ExtensionSignInOutcome,
  Json,
} from "./lib/extensions/api.js"
export type {
  AccountApi,
  AccountEmailChange,
  AccountEnrollment,
  AccountLink,
  AccountPasskey,
  AccountSession,
  AccountTwoFactor,
  AccountUser,
  AccountWaysIn,
} from "./lib/extensions/account-api.js"
export type { ExtensionAdmin, AdminUser, AdminUserQuery, AdminUserPage, AdminCapabilities, AdminImpersonation, AdminImpersonationEnd, AdminWaysIn } from "./lib/extensions/admin-api.js"
export type { AuditEvent, AuditEventType } from "./lib/audit/events.js"
export type { AuditPage, AuditQuery } from "./lib/audit/query.js"
export type { Cookie, SessionInfo } from "./base-types.js"
export { html, raw, escapeHtml, SafeHtml } from "./lib/pages/html.js"
export { ExtensionRequestError, AccountSuspended } from "./lib/extensions/errors.js"
export { InvalidConfig, NotSignedIn, StepUpRequired, RateLimited, ServiceUnavailable } from "./errors.js"

/** Typed event handlers for {@link defineExtension}: the app's `events`, by name. */
export type TypedExtensionEvents = Partial<EventCallbacks>

/**
 * Declares an extension, inferring its id, its server functions and its state from what is
 * written; its `events` are typed as the app's `events` option.
 */
export function defineExtension<const Id extends string, Server = undefined, Locals = undefined>(
  extension: Omit<Extension<Id, Server, Locals>, "events"> & { events?: (locals: Locals) => TypedExtensionEvents },
): Extension<Id, Server, Locals> {
  return extension as Extension<Id, Server, Locals> & { events?: (locals: Locals) => ExtensionEventHandlers }
}
