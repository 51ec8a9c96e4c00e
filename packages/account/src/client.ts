/**
 * `@portcullis/account/client`: the browser's functions over the account center's JSON
 * routes, for components. Each change sends the CSRF token (read once from
 * `<basePath>/csrf`) as the `X-CSRF-Token` header with a JSON body. Refusals throw
 * {@link AccountClientError} with the route's stable `code`; a `StepUpRequired` one carries
 * the URL of the re-authentication page that comes back to this one.
 *
 * @example
 * ```ts
 * import { accountClient } from "@portcullis/account/client"
 *
 * const account = accountClient({ basePath: "/auth" })
 * const { user, sessions } = await account.state()
 * await account.updateProfile({ name: "Ada Lovelace" })
 * try {
 *   await account.revokeOtherSessions()
 * } catch (error) {
 *   if (error instanceof AccountClientError && error.code === "StepUpRequired") location.href = error.reauthenticateUrl!
 * }
 * ```
 * @module
 */
import type { AccountEnrollment } from "@portcullis/core/extension"
import type { AccountState } from "./server.js"

export type { AccountState }

/** A refusal: `code` is its stable reason (`last-way-in`, `StepUpRequired`, `PasswordRejected`…), `status` the HTTP status. */
export class AccountClientError extends Error {
  readonly code: string
  readonly status: number
  /** With `StepUpRequired`: where to re-authenticate, coming back to the current page. */
  readonly reauthenticateUrl: string | undefined
  constructor(code: string, message: string, status: number, reauthenticateUrl?: string) {
    super(message)
    this.name = "AccountClientError"
    this.code = code
    this.status = status
    this.reauthenticateUrl = reauthenticateUrl
  }
}

/** The options of {@link accountClient}. */
export interface AccountClientOptions {
  /** Where the auth routes are served. Default `"/api/auth"`. */
  basePath?: string
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: typeof fetch
  /** The page to come back to after a re-authentication. Default: the current location. */
  returnTo?: () => string
}

/** The browser's account API: one function per action of the page. */
export interface AccountClient {
  state(): Promise<AccountState>
  updateProfile(patch: { name?: string | null; image?: string | null }): Promise<void>
  /** Mails a confirmation link to `email` (the same answer whether or not the address is taken). Step-up. */
  requestEmailChange(email: string): Promise<void>
  confirmEmailChange(email: string, token: string): Promise<void>
  /** Unlinks a provider's account; `last-way-in` when it is the only way in. Step-up. */
  unlink(provider: string): Promise<void>
  /** Starts linking `provider`: a form post to core's sign-in, which links to the signed-in user. */
  link(provider: string, callbackUrl?: string): Promise<void>
  /** Registers a passkey on this device with core's WebAuthn flow (a recent sign-in needed). */
  addPasskey(): Promise<void>
  renamePasskey(id: string, name: string): Promise<void>
  /** Step-up. */
  removePasskey(id: string): Promise<void>
  /** A first password. Step-up. */
  setPassword(password: string): Promise<void>
  changePassword(currentPassword: string, password: string): Promise<void>
  /** Step-up: a new pending enrollment (QR code and key); the state shows it until confirmed. */
  startTwoFactor(): Promise<AccountEnrollment>
  confirmTwoFactor(code: string): Promise<{ backupCodes: string[] }>
  disableTwoFactor(code: string): Promise<void>
  regenerateBackupCodes(code: string): Promise<{ backupCodes: string[] }>
  revokeSession(id: string): Promise<void>
  /** Step-up. */
  revokeOtherSessions(): Promise<number>
  /** `confirm` must be the word `DELETE`. Step-up. */
  deleteAccount(confirm: string): Promise<void>
}

/** The account center's client for the auth routes at `basePath`. */
export function accountClient(options: AccountClientOptions = {}): AccountClient {
  const basePath = (options.basePath ?? "/api/auth").replace(/\/$/, "")
  const call = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  const returnTo = options.returnTo ?? (() => (typeof location === "undefined" ? "/" : location.href))
  let csrf: Promise<string> | undefined
  const token = () =>
    (csrf ??= call(`${basePath}/csrf`, { credentials: "same-origin" })
      .then((r) => r.json() as Promise<{ csrfToken: string }>)
      .then((r) => r.csrfToken)
      .catch((error: unknown) => {
        csrf = undefined
        throw error
      }))

  async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" }
    if (method === "POST") {
      headers["content-type"] = "application/json"
      headers["x-csrf-token"] = await token()
    }
    const response = await call(`${basePath}/account/${path}`, { method, headers, credentials: "same-origin", ...(method === "POST" && { body: JSON.stringify(body ?? {}) }) })
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>
    if (!response.ok) {
      const code = typeof answer.error === "string" ? answer.error : "ServerError"
      // A refused token (it rotated) is read again for the next call.
      if (code === "MissingCSRF") csrf = undefined
      const reauth = code === "StepUpRequired" ? `${basePath}/reauthenticate?callbackUrl=${encodeURIComponent(returnTo())}` : undefined
      throw new AccountClientError(code, typeof answer.message === "string" ? answer.message : `Request failed (${response.status})`, response.status, reauth)
    }
    return answer as T
  }
  const post = <T = unknown>(path: string, body?: unknown) => request<T>("POST", path, body)
  const id = encodeURIComponent

  return {
    state: () => request<AccountState>("GET", "state"),
    updateProfile: async (patch) => void (await post("profile", patch)),
    requestEmailChange: async (email) => void (await post("email", { email })),
    confirmEmailChange: async (email, token) => void (await post("email/confirm", { email, token })),
    unlink: async (provider) => void (await post(`accounts/${id(provider)}/unlink`)),
    async link(provider, callbackUrl = returnTo()) {
      // Core's sign-in is a form post (a redirect to the provider): the browser navigates.
      const form = document.createElement("form")
      form.method = "post"
      form.action = `${basePath}/signin/${id(provider)}`
      for (const [name, value] of Object.entries({ csrfToken: await token(), callbackUrl })) {
        const input = document.createElement("input")
        input.type = "hidden"
        input.name = name
        input.value = value
        form.append(input)
      }
      document.body.append(form)
      form.submit()
    },
    addPasskey: () => registerPasskey(call, basePath, token),
    renamePasskey: async (passkey, name) => void (await post(`passkeys/${id(passkey)}/rename`, { name })),
    removePasskey: async (passkey) => void (await post(`passkeys/${id(passkey)}/remove`)),
    setPassword: async (password) => void (await post("password/set", { password })),
    changePassword: async (currentPassword, password) => void (await post("password/change", { currentPassword, password })),
    startTwoFactor: () => post<AccountEnrollment>("two-factor/start"),
    confirmTwoFactor: (code) => post<{ backupCodes: string[] }>("two-factor/confirm", { code }),
    disableTwoFactor: async (code) => void (await post("two-factor/disable", { code })),
    regenerateBackupCodes: (code) => post<{ backupCodes: string[] }>("two-factor/regenerate", { code }),
    revokeSession: async (session) => void (await post(`sessions/${id(session)}/revoke`)),
    revokeOtherSessions: async () => (await post<{ revoked: number }>("sessions/revoke-others")).revoked,
    deleteAccount: async (confirm) => void (await post("delete", { confirm })),
  }
}

// ---------------------------------------------------------------------------------------
// Passkey registration over core's WebAuthn routes (docs/passkeys.md, "The HTTP flow").

const fromBase64url = (value: string): ArrayBuffer => {
  const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(value.length / 4) * 4, "="))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer
}

const toBase64url = (buffer: ArrayBuffer): string => {
  let binary = ""
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

interface CreationOptionsJSON {
  challenge: string
  user: { id: string; name: string; displayName: string }
  excludeCredentials?: Array<{ id: string; type: "public-key"; transports?: string[] }>
  [key: string]: unknown
}

async function registerPasskey(call: typeof fetch, basePath: string, token: () => Promise<string>): Promise<void> {
  const provider = "passkey"
  const answer = await call(`${basePath}/webauthn-options/${provider}?action=register`, { credentials: "same-origin" })
  if (!answer.ok) throw new AccountClientError("WebAuthnOptions", "The passkey options could not be read", answer.status)
  const { options } = (await answer.json()) as { options: CreationOptionsJSON }
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    user: { ...options.user, id: fromBase64url(options.user.id) },
    excludeCredentials: (options.excludeCredentials ?? []).map((c) => ({ ...c, id: fromBase64url(c.id) })),
  } as unknown as PublicKeyCredentialCreationOptions
  const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null
  if (!credential) throw new AccountClientError("WebAuthnCancelled", "No passkey was created", 400)
  const response = credential.response as AuthenticatorAttestationResponse
  const data = {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      attestationObject: toBase64url(response.attestationObject),
      transports: response.getTransports?.() ?? [],
    },
  }
  const done = await call(`${basePath}/callback/${provider}`, {
    method: "POST",
    credentials: "same-origin",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action: "register", data: JSON.stringify(data), csrfToken: await token() }),
  })
  // Core answers a redirect: to the callback on success, with ?error= on a refusal.
  const location = done.headers.get("location") ?? ""
  if (done.type !== "opaqueredirect" && (!location || /[?&]error=/.test(location))) {
    throw new AccountClientError(new URL(location || "http://x/?error=WebAuthnVerificationError", "http://x").searchParams.get("error") ?? "WebAuthnVerificationError", "The passkey was not added", done.status || 400)
  }
}
