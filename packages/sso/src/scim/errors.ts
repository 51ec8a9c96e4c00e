/**
 * SCIM's error answers (RFC 7644 §3.12): a body with the Error schema, the status as a
 * string, an optional `scimType`, and a `detail` that never carries a token or an
 * attribute's value beyond what the client itself sent.
 * @module
 */

/** The `scimType`s of RFC 7644 §3.12 this server answers with. */
export type ScimType = "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax" | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers"

/** What {@link scimRequest} answers: a status, a SCIM JSON body and headers. */
export interface ScimResponse {
  status: number
  body?: object
  headers?: Record<string, string>
}

/** The content type of every SCIM body (RFC 7644 §3.1). */
export const SCIM_CONTENT_TYPE = "application/scim+json"

const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"

/**
 * A SCIM request refused: the HTTP `status`, the RFC's `scimType` when one applies, and a
 * stable `code` to switch on (the `scimType`, or `unauthorized`, `not-found`,
 * `precondition-failed`, `unavailable`, …).
 *
 * @example
 * ```ts
 * throw new ScimError(409, "userName is already taken", "uniqueness")
 * ```
 */
export class ScimError extends Error {
  override readonly name = "ScimError"
  readonly status: number
  readonly scimType: ScimType | undefined
  readonly code: string
  /** Extra response headers (`WWW-Authenticate` on a 401, `Retry-After` on a 503). */
  readonly headers: Record<string, string>

  constructor(status: number, detail: string, scimType?: ScimType, headers: Record<string, string> = {}) {
    super(detail)
    this.status = status
    this.scimType = scimType
    this.headers = headers
    this.code = scimType ?? CODES[status] ?? "invalid"
  }

  /** The SCIM answer for this refusal. */
  toResponse(): ScimResponse {
    const body: Record<string, unknown> = { schemas: [ERROR_SCHEMA], status: String(this.status), detail: this.message }
    if (this.scimType) body.scimType = this.scimType
    return { status: this.status, body, headers: { "Content-Type": SCIM_CONTENT_TYPE, ...this.headers } }
  }
}

const CODES: Record<number, string> = {
  400: "invalid",
  401: "unauthorized",
  404: "not-found",
  405: "method-not-allowed",
  409: "conflict",
  412: "precondition-failed",
  413: "too-large",
  501: "not-implemented",
  503: "unavailable",
}

/** 400 with a `scimType`, the commonest refusal. */
export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType)

/** 404 for a resource id the organization does not have (another organization's ids look the same: absent). */
export const notFound = (what: "User" | "Group", id: string) => new ScimError(404, `${what} ${JSON.stringify(id.slice(0, 64))} not found`)
