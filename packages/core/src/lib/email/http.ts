/**
 * The one HTTP call the API-based senders (Resend, SendGrid, Postmark) make.
 * @module
 */
import type { EmailConfig } from "../../providers/email.js"
import { customFetch } from "../../symbols.js"
import { envProviderId } from "../config/env.js"

/** How long a mail API may take before the sign-in fails closed with `EmailSignin`. */
const TIMEOUT_MS = 15_000

/** Longest piece of an error response kept for the server log. */
const MAX_ERROR_BODY = 500

/** The provider's API key, or an error that says where to put it. */
export function requireApiKey(provider: EmailConfig, service: string): string {
  if (typeof provider.apiKey === "string" && provider.apiKey) return provider.apiKey
  throw new Error(`${service}: no API key. Set AUTH_${envProviderId(provider.id)}_KEY or pass apiKey to the provider`)
}

/**
 * POSTs `body` as JSON through the provider's fetch (its own `[customFetch]`, else the
 * config's, which the email kind puts there) and resolves with the parsed answer.
 * A non-2xx answer or a timeout rejects; the message keeps the status and the start of
 * the body for the log (the kind redacts any token from it before logging).
 */
export async function postJson(provider: EmailConfig, service: string, url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const fetchImpl = provider[customFetch] ?? fetch
  const response = await fetchImpl(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: "error",
  })
  const text = await response.text().catch(() => "")
  if (!response.ok) {
    throw new Error(`${service} answered ${response.status}: ${text.slice(0, MAX_ERROR_BODY) || "(empty body)"}`)
  }
  if (!text) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
