/**
 * Email sign-in through the Mailgun HTTP API.
 * @module
 */
import { requireApiKey } from "../lib/email/http.js"
import { DEFAULT_FROM, renderVerificationEmail } from "../lib/email/template.js"
import { customFetch } from "../symbols.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js"

/** Mailgun's API hosts by region (documentation.mailgun.com/docs/mailgun/api-reference). */
export const MAILGUN_HOSTS = { US: "https://api.mailgun.net", EU: "https://api.eu.mailgun.net" } as const

/** Mailgun options. */
export type MailgunUserConfig = EmailUserConfig & {
  /** Where the sending domain was created. Default `"US"`. */
  region?: "US" | "EU"
  /** The sending domain; default: the domain of the `from` address. */
  domain?: string
}

/** A Mailgun email provider. */
export interface MailgunConfig extends EmailConfig {
  region: "US" | "EU"
  domain?: string
}

/** How long Mailgun may take before the sign-in fails closed. */
const TIMEOUT_MS = 15_000

/** The bare address of a `from` such as `Example <no-reply@example.com>`. */
function addressOf(from: string): string {
  return (/<([^<>]+)>\s*$/.exec(from)?.[1] ?? from).trim()
}

/**
 * Sign in with a link sent by [Mailgun](https://www.mailgun.com).
 *
 * - API key: `apiKey`, else env `AUTH_MAILGUN_KEY` (`AUTH_<ID>_KEY` for another id): a
 *   sending key or the account's API key.
 * - `from` must be an address of a domain verified in Mailgun; that domain is the sending
 *   domain unless you pass `domain`. Domains created in the EU region need `region: "EU"`.
 * - Sends `POST https://api.mailgun.net/v3/<domain>/messages` (`api.eu.mailgun.net` for EU),
 *   HTTP Basic `api:<key>`, form fields `from`, `to`, `subject`, `text`, `html`, through the
 *   provider's fetch (`[customFetch]` applies).
 * - Click tracking is switched off for this message (`o:tracking-clicks=no`), so the token is
 *   not routed through Mailgun's redirector.
 * - Any non-2xx answer or a 15 s timeout ends with `?error=EmailSignin`.
 *
 * @example
 * ```ts
 * import Mailgun from "@portcullis/core/providers/mailgun"
 *
 * Mailgun({ from: "Example <no-reply@mg.example.com>", region: "EU", maxAge: 10 * 60 }) // key from AUTH_MAILGUN_KEY
 * ```
 */
export default function Mailgun(config: MailgunUserConfig = {}): MailgunConfig {
  return {
    id: "mailgun",
    name: "Mailgun",
    type: "email",
    from: DEFAULT_FROM,
    maxAge: 24 * 60 * 60,
    region: "US",
    sendVerificationRequest: sendWithMailgun,
    options: config as Record<string, unknown>,
  }
}

async function sendWithMailgun({ identifier, url, expires, provider, theme, language }: SendVerificationRequestParams): Promise<void> {
  const apiKey = requireApiKey(provider, "Mailgun")
  const { region, domain: configured } = provider as MailgunConfig
  const from = provider.from || DEFAULT_FROM
  const domain = configured || addressOf(from).split("@").at(-1)
  if (!domain) throw new Error("Mailgun: no sending domain. Pass domain, or a from address with a domain")
  const host = MAILGUN_HOSTS[region === "EU" ? "EU" : "US"]
  const { subject, html, text } = renderVerificationEmail({ url, expires, theme, ...language })
  const body = new URLSearchParams({ from, to: identifier, subject, text, html, "o:tracking-clicks": "no" })
  const fetchImpl = provider[customFetch] ?? fetch
  const response = await fetchImpl(`${host}/v3/${encodeURIComponent(domain)}/messages`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${btoa(`api:${apiKey}`)}`,
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: "error",
  })
  if (!response.ok) {
    const detail = await response.text().catch(() => "")
    throw new Error(`Mailgun answered ${response.status}: ${detail.slice(0, 500) || "(empty body)"}`)
  }
}
