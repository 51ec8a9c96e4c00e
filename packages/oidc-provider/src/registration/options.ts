/**
 * The options of dynamic client registration (RFC 7591) and their checks at setup.
 * @module
 */
import { InvalidConfig } from "@portcullis/core/extension"

/** Registration for holders of an initial access token (RFC 7591 §3): your own tooling, a partner's deploy script. */
export interface ProtectedRegistration {
  /** The bearer token a registration must carry; at least 32 characters. Only its SHA-256 is kept. */
  initialAccessToken: string
  /** Seconds a generated client secret works (`client_secret_expires_at`); default never (0). */
  secretTtl?: number
  /** Scopes a registered client may ask for; default every configured scope. */
  scopes?: string[]
  /** Whether native apps may register private-use scheme redirect URIs (`com.example.app:/cb`, RFC 8252 §7.1). Default `true`. */
  privateUseSchemes?: boolean
}

/**
 * Open registration, for MCP clients and other software that registers itself: anyone may
 * register, within limits — per address, a cap on dynamic clients, a fixed set of scopes.
 */
export interface OpenRegistration {
  open: true
  /** How many dynamic clients may exist at once. Default 1000. */
  maxClients?: number
  /** Registrations per client address. Default `{ max: 10, window: 3600 }`. */
  rateLimit?: { max: number; window: number }
  /** Scopes a registered client may ask for. Default `["openid", "profile", "email", "offline_access"]` (of those configured). */
  scopes?: string[]
  secretTtl?: number
  privateUseSchemes?: boolean
}

/** `registration`: off (`false`, the default), for holders of a token, or open within limits. */
export type RegistrationOptions = false | ProtectedRegistration | OpenRegistration

/** The resolved registration policy. */
export interface RegistrationPolicy {
  /** SHA-256 (hex) of the initial access token; absent in open mode. */
  initialTokenHash?: Promise<string>
  open: boolean
  maxClients: number
  rateLimit: { max: number; window: number }
  scopes: string[]
  secretTtl: number
  privateUseSchemes: boolean
}

const OPEN_SCOPES = ["openid", "profile", "email", "offline_access"]

const fail = (message: string): never => {
  throw new InvalidConfig(`oidcProvider: registration${message}`)
}

async function sha256Hex(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)))
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
}

/** Checks `registration` against the configured scopes. */
export function resolveRegistration(options: RegistrationOptions | undefined, configuredScopes: string[]): RegistrationPolicy | false {
  if (options === undefined || options === false) return false
  if (!options || typeof options !== "object") return fail(" must be false, { initialAccessToken } or { open: true }")
  const open = "open" in options && options.open === true
  const token = (options as ProtectedRegistration).initialAccessToken
  if (!open && (typeof token !== "string" || token.length < 32)) fail(".initialAccessToken must be at least 32 characters (or use { open: true })")
  if (open && token !== undefined) fail(": give initialAccessToken or open, not both")
  const maxClients = (options as OpenRegistration).maxClients ?? 1000
  if (!Number.isInteger(maxClients) || maxClients < 1) fail(".maxClients must be a whole number above 0")
  const rateLimit = (options as OpenRegistration).rateLimit ?? { max: 10, window: 3600 }
  if (!Number.isInteger(rateLimit.max) || rateLimit.max < 1 || !Number.isInteger(rateLimit.window) || rateLimit.window < 1) fail(".rateLimit must be { max, window } in whole numbers above 0")
  const scopes = options.scopes ?? (open ? OPEN_SCOPES.filter((s) => configuredScopes.includes(s)) : configuredScopes)
  if (!Array.isArray(scopes)) fail(".scopes must be a list of configured scopes")
  for (const s of scopes) if (!configuredScopes.includes(s)) fail(`.scopes: "${s}" is not a configured scope`)
  const secretTtl = options.secretTtl ?? 0
  if (!Number.isInteger(secretTtl) || secretTtl < 0) fail(".secretTtl must be a whole number of seconds (0: never expires)")
  return {
    ...(!open && { initialTokenHash: sha256Hex(token) }),
    open,
    maxClients,
    rateLimit,
    scopes: [...scopes],
    secretTtl,
    privateUseSchemes: options.privateUseSchemes ?? true,
  }
}
