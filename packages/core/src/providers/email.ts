/**
 * Email (magic link) provider types.
 * @module
 */
import type { Awaitable, Theme } from "../types.js"
import type { CommonProviderOptions } from "./index.js"
import type { customFetch } from "../symbols.js"

/** What `sendVerificationRequest` receives. */
export interface SendVerificationRequestParams {
  /** The address to send to. */
  identifier: string
  /** The sign-in link. */
  url: string
  expires: Date
  provider: EmailConfig
  /** The raw token (also in `url`). */
  token: string
  theme: Theme
  request: Request
}

/** An email provider. */
export interface EmailConfig extends CommonProviderOptions {
  type: "email"
  /** Sends the link. */
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>
  /** Seconds a link stays valid. Default 24 hours. */
  maxAge?: number
  /** Creates the raw token. Default: 32 random bytes as hex. */
  generateVerificationToken?: () => Awaitable<string>
  /** Canonicalises the submitted address; throw to refuse it. */
  normalizeIdentifier?: (identifier: string) => string
  /** Secret for hashing tokens, when it must differ from the main secret. */
  secret?: string
  from?: string
  server?: unknown
  apiKey?: string
  options?: Record<string, unknown>
  [customFetch]?: typeof fetch
}
