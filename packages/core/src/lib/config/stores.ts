import { Deadlines } from "./deadlines.js"
import type { StoreHealth, StoreName } from "../store-health.js"
import { SpanKind, type Telemetry } from "../telemetry/index.js"
import type { Adapter } from "../../adapters.js"
import {
  AdapterError,
  type AuthError,
  ExperimentalFeatureNotEnabled,
  InvalidConfig,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
} from "../../errors.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { LoggerInstance, SessionOptions, SessionRegistry } from "../../base-types.js"
import type { AuthConfig } from "../../types.js"

/**
 * The adapter as each feature sees it. `Adapter` (Auth.js's interface) makes every method
 * optional; the configuration check proves which ones a feature needs are there, and
 * {@link narrowStores} hands each feature a type in which those methods are required — so
 * no later line needs a non-null assertion, and a feature whose methods are missing has no
 * store at all instead of one that fails on first use.
 */

/** Adapter methods each feature needs; named in the error when missing. */
/** Adapter methods each feature needs; named in the error when missing. */
export const needs = {
  // Every way in that creates users has these (each list below includes them).
  users: ["createUser", "getUserByEmail"],
  database: ["createUser", "getUser", "getUserByEmail", "getUserByAccount", "updateUser", "linkAccount", "createSession", "getSessionAndUser", "updateSession", "deleteSession"],
  oauth: ["createUser", "getUser", "getUserByEmail", "getUserByAccount", "linkAccount"],
  email: ["createUser", "getUserByEmail", "updateUser", "createVerificationToken", "useVerificationToken"],
  credentials: ["createUser", "getUser", "getUserByEmail"],
  // Hashes live behind their own capability (docs/passwords.md), never on the user record.
  // Verification tokens carry the sign-up and reset links (lib/password-flows/tokens.ts).
  // deleteUser: a reset, or a verification confirmed without the sign-up's password, replaces a user whose address was never verified (T67).
  password: ["createUser", "getUser", "getUserByEmail", "updateUser", "deleteUser", "getUserPassword", "setUserPassword", "createVerificationToken", "useVerificationToken"],
  // Verification tokens record issued challenges, so each is claimed once across processes.
  webauthn: ["createUser", "getUser", "getUserByEmail", "linkAccount", "getAccount", "getAuthenticator", "createAuthenticator", "listAuthenticatorsByUserId", "updateAuthenticatorCounter", "createVerificationToken", "useVerificationToken"],
} as const

export function checkProviders(
  providers: ProviderConfig[],
  config: AuthConfig,
  session: SessionOptions,
  adapter: Adapter | undefined,
  fail: (e: AuthError) => void,
  logger: LoggerInstance,
) {
  const required = new Set<string>()
  if (session.strategy === "database") needs.database.forEach((m) => required.add(m))
  for (const p of providers) {
    if (p.type === "credentials") {
      if (typeof p.authorize !== "function") fail(new MissingAuthorize(`The credentials provider "${p.id}" has no authorize() function`))
      if (session.strategy === "database") needs.credentials.forEach((m) => required.add(m))
    } else if (p.type === "email") {
      if (!adapter) fail(new MissingAdapter(`The email provider "${p.id}" needs an adapter to store verification tokens`))
      needs.email.forEach((m) => required.add(m))
    } else if (p.type === "webauthn") {
      if (!config.experimental?.enableWebAuthn) fail(new ExperimentalFeatureNotEnabled(`The WebAuthn provider "${p.id}" needs experimental: { enableWebAuthn: true }`))
      else logger.warn("experimental-webauthn")
      if (!adapter) fail(new MissingAdapter(`The WebAuthn provider "${p.id}" needs an adapter to store authenticators`))
      needs.webauthn.forEach((m) => required.add(m))
    } else if (p.type === "password") {
      if (!adapter) fail(new MissingAdapter(`The password provider "${p.id}" needs an adapter to store users and password hashes`))
      needs.password.forEach((m) => required.add(m))
    } else if ((p.type === "oauth" || p.type === "oidc") && adapter) {
      needs.oauth.forEach((m) => required.add(m))
    } else if (p.type !== "oauth" && p.type !== "oidc") {
      fail(new InvalidConfig(`Provider "${(p as { id: string }).id}" has an unknown type ${JSON.stringify((p as { type: unknown }).type)}`))
    }
  }
  if (adapter) {
    const missing = [...required].filter((m) => typeof (adapter as Record<string, unknown>)[m] !== "function")
    if (missing.length) fail(new MissingAdapterMethods(`The adapter lacks methods this configuration needs: ${missing.join(", ")}`))
    const replaces = replacesUnverifiedUsers(providers, session)
    if (replaces && typeof adapter.deleteUser !== "function") {
      fail(new MissingAdapterMethods(`The adapter lacks deleteUser, which this configuration needs: ${replaces} can create users whose address is not verified, and such a user is deleted and replaced when its address is first verified (T67, docs/security.md)`))
    }
  }
}

/**
 * Whether a user created without a verified address can later have it verified — the
 * first-verification reset (T67), which deletes that user. Returns why, for the error.
 */
function replacesUnverifiedUsers(providers: ProviderConfig[], session: SessionOptions): string | undefined {
  const email = providers.find((p) => p.type === "email")
  const unverified = providers.find(
    (p) => p.type === "webauthn" || p.type === "oauth" || p.type === "oidc" || p.type === "password" || (p.type === "credentials" && session.strategy === "database"),
  )
  if (email && unverified) return `the email provider "${email.id}" beside "${unverified.id}"`
  // Linking by email verifies the address through the provider (lib/oauth/link.ts).
  const linking = providers.find((p) => (p.type === "oauth" || p.type === "oidc") && p.allowDangerousEmailAccountLinking)
  if (linking) return `"${linking.id}" with allowDangerousEmailAccountLinking`
  return undefined
}

/** A store that answers within this is healthy; one that does not is better reported than waited on. */
const DEFAULT_ADAPTER_TIMEOUT = 5_000

export function resolveAdapterTimeout(option: AuthConfig["adapterTimeout"], fail: (e: AuthError) => void): number {
  if (option === undefined) return DEFAULT_ADAPTER_TIMEOUT
  if (option === false) return 0
  // setTimeout clamps anything above 2^31-1 ms to 1 ms, which would fail every call.
  if (typeof option !== "number" || !Number.isFinite(option) || option < 0 || option > 2_147_483_647) {
    fail(new InvalidConfig(`adapterTimeout must be a number of milliseconds >= 0, or false, got ${JSON.stringify(option)}`))
    return DEFAULT_ADAPTER_TIMEOUT
  }
  return option
}

/**
 * Adapter errors become `AdapterError` with the original as cause: one error type to handle.
 * With `timeoutMs`, a call that has not settled by then fails the same way (its cause a
 * `TimeoutError`); the call itself cannot be cancelled and is left to finish or fail unseen.
 */
export function wrapAdapter(adapter: Adapter, logger: LoggerInstance, timeoutMs: number, health: StoreHealth, telemetry?: Telemetry): Adapter {
  return wrapMethods(adapter, Object.keys(adapter), logger, timeoutMs, health, "adapter", telemetry) as Adapter
}

/**
 * The session registry (`session.registry`) wrapped as the adapter is: failures and calls
 * slower than `adapterTimeout` become `AdapterError`s. Its methods are read by name, so a
 * class instance (methods on the prototype) works too.
 */
export function wrapRegistry(registry: SessionRegistry, logger: LoggerInstance, timeoutMs: number, health: StoreHealth, telemetry?: Telemetry): SessionRegistry {
  return wrapMethods(registry, ["add", "touch", "list", "remove", "removeAll", "count"], logger, timeoutMs, health, "session registry", telemetry) as unknown as SessionRegistry
}

/** The adapter's audit capability: the three methods, all there (see {@link wrapAuditStore}). */
export type AuditStoreMethods = AdapterWith<"createAuditRecord" | "listAuditRecords" | "deleteAuditRecordsBefore">

/**
 * The adapter's audit capability wrapped as the adapter is, but tracked as the "audit
 * store": an audit table that fails (full, locked, dropped) is an outage of its own, logged
 * as one, and never counted against the adapter the sign-ins need. `undefined` when the
 * adapter lacks any of the three methods.
 */
export function wrapAuditStore(adapter: Adapter, logger: LoggerInstance, timeoutMs: number, health: StoreHealth, telemetry?: Telemetry): AuditStoreMethods | undefined {
  const names = ["createAuditRecord", "listAuditRecords", "deleteAuditRecordsBefore"] as const
  if (!has(adapter, names)) return undefined
  return wrapMethods(adapter, [...names], logger, timeoutMs, health, "audit store", telemetry) as unknown as AuditStoreMethods
}

/**
 * Wraps `names` of `target` as the adapter's methods are wrapped (`AdapterError`s, bounded by
 * `timeoutMs`, tracked as `store`); extensions' stores too (`extensions/resolve.ts`).
 */
export function wrapMethods(target: object, names: string[], logger: LoggerInstance, timeoutMs: number, health: StoreHealth, store: StoreName, telemetry?: Telemetry): Record<string, unknown> {
  const wrapped: Record<string, unknown> = {}
  // Its outage tracker: a failure is registered (and counted once a request fails with it,
  // lib/report.ts); a success only reads `failing`, unless it ends an outage.
  const tracker = health.of(store)
  // One set of deadlines for all of this store's calls (see `Deadlines`).
  const deadlines = timeoutMs ? new Deadlines(timeoutMs) : undefined
  for (const name of names) {
    const method = (target as Record<string, unknown>)[name]
    if (typeof method !== "function") continue
    const adapter = target
    const event = `adapter_${name}`
    const late = () => new DOMException(`${name} did not answer within ${timeoutMs} ms`, "TimeoutError")
    const call = async (...args: unknown[]) => {
      try {
        logger.debug(event)
        const result: unknown = method.apply(adapter, args)
        // An answer already there (an in-memory adapter) cannot be late: no deadline for it.
        const value = !deadlines || typeof (result as PromiseLike<unknown> | null)?.then !== "function" ? await result : await deadlines.race(result as PromiseLike<unknown>, late)
        if (tracker.failing) tracker.recovered()
        return value
      } catch (e) {
        const error = new AdapterError(`Adapter method ${name} failed`, e as Error)
        error.name = `${name}`
        health.raised(store, error)
        throw error
      }
    }
    // A client span per call when a tracer is registered (decided once, here): the method's
    // name only — its arguments are users, emails and tokens.
    const spanName = `portcullis.${store === "adapter" ? "adapter" : store === "audit store" ? "audit_store" : "session_registry"} ${name}`
    const attributes = { "db.operation.name": name, "portcullis.adapter.method": name, "portcullis.store": store }
    wrapped[name] = telemetry?.tracing ? (...args: unknown[]) => telemetry.span(spanName, SpanKind.CLIENT, attributes, () => call(...args)) : call
  }
  return wrapped
}


type AdapterMethod = { [K in keyof Adapter]-?: NonNullable<Adapter[K]> extends (...args: any[]) => any ? K : never }[keyof Adapter]

/** `Adapter` with the methods `M` required. */
export type AdapterWith<M extends AdapterMethod> = Adapter & { [K in M]-?: NonNullable<Adapter[K]> }

/** What the adapter is for each feature: the methods `needs[N]` lists, required. */
export type Need = keyof typeof needs
export type StoreFor<N extends Need> = AdapterWith<(typeof needs)[N][number]>
export type Stores = { readonly [N in Need]?: StoreFor<N> }

/** Whether `adapter` has every method in `names` (a real check, which narrows the type). */
function has<M extends AdapterMethod>(adapter: Adapter, names: readonly M[]): adapter is AdapterWith<M> {
  return names.every((name) => typeof adapter[name] === "function")
}

/** The adapter narrowed per feature; a feature is absent when a method it needs is. */
export function narrowStores(adapter: Adapter | undefined): Stores {
  if (!adapter) return {}
  return {
    users: has(adapter, needs.users) ? adapter : undefined,
    database: has(adapter, needs.database) ? adapter : undefined,
    oauth: has(adapter, needs.oauth) ? adapter : undefined,
    email: has(adapter, needs.email) ? adapter : undefined,
    credentials: has(adapter, needs.credentials) ? adapter : undefined,
    webauthn: has(adapter, needs.webauthn) ? adapter : undefined,
    password: has(adapter, needs.password) ? adapter : undefined,
  }
}

/**
 * The adapter for `need`. The configuration check guarantees it for every configured
 * feature, so the throw is for code paths a configuration cannot reach — a clear
 * `MissingAdapter` instead of `undefined is not a function`.
 */
export function store<N extends Need>(stores: Stores, need: N): StoreFor<N> {
  const found: StoreFor<N> | undefined = stores[need]
  if (!found) throw new MissingAdapter(`This needs an adapter with ${needs[need].join(", ")}`)
  return found
}
