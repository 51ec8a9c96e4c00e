/**
 * The SCIM 2.0 server (RFC 7643/7644) of one organization: routes a request to its
 * endpoint, and turns every refusal into a SCIM error body — a client's mistake into a 4xx
 * with its `scimType`, a store or app that is down into a 503 with `Retry-After`, never a
 * 500 with a stack.
 * @module
 */
import type { ScimToken, SsoStore } from "../store/types.js"
import { authenticateScim } from "./auth.js"
import type { ScimContext } from "./context.js"
import { resourceTypes, schemaEndpoint, serviceProviderConfig } from "./discovery.js"
import type { ScimDirectory } from "./directory.js"
import { ScimError, type ScimResponse } from "./errors.js"
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "./groups.js"
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from "./users.js"

/** A SCIM request as the integrator's route passes it on. */
export interface ScimRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** The path's segments after `/scim/v2` (decoded): `["Users"]`, `["Groups", "<id>"]`. */
  path: string[]
  query: Record<string, string>
  /** The parsed JSON body (core caps its size); `undefined` without one. */
  body: unknown
  /** The endpoint's absolute URL up to and including `/v2`: `https://app.example/auth/sso/scim/<connection id>/v2`. */
  baseUrl: string
  /** The `If-Match` header. */
  ifMatch?: string
}

const MAX_ID = 256

const methodNotAllowed = () => new ScimError(405, "This endpoint does not allow that method")

/**
 * Answers one SCIM request for the directory's organization. The caller has authenticated
 * the request ({@link authenticateScim}) and built the directory for the token's
 * organization; {@link handleScimRequest} does both.
 *
 * @example
 * ```ts
 * const res = await scimRequest(directory, { method: "GET", path: ["Users"], query: { filter: 'userName eq "ada@acme.com"' }, body: undefined, baseUrl: "https://app.example/auth/sso/scim/conn_1/v2" })
 * // res.status 200, res.body a ListResponse, res.headers["Content-Type"] "application/scim+json"
 * ```
 */
export async function scimRequest(directory: ScimDirectory, request: ScimRequest, options: { now?: () => Date } = {}): Promise<ScimResponse> {
  const ctx: ScimContext = { dir: directory, baseUrl: request.baseUrl.replace(/\/+$/, ""), ifMatch: request.ifMatch, now: options.now ?? (() => new Date()) }
  try {
    return await route(ctx, request)
  } catch (error) {
    return failure(error, directory.reportError)
  }
}

function failure(error: unknown, report: ((error: unknown) => void) | undefined): ScimResponse {
  if (error instanceof ScimError) return error.toResponse()
  // A store or the app failed: the client is told to retry, the details go to the log only.
  report?.(error)
  return new ScimError(503, "The directory is unavailable; retry later", undefined, { "Retry-After": "5" }).toResponse()
}

async function route(ctx: ScimContext, request: ScimRequest): Promise<ScimResponse> {
  const [resource = "", id, ...rest] = request.path.filter((p) => p !== "")
  if (rest.length > 0 || (id !== undefined && id.length > MAX_ID)) throw new ScimError(404, "No such endpoint")
  const { method, query, body } = request
  switch (resource.toLowerCase()) {
    case "serviceproviderconfig":
      if (method !== "GET") throw methodNotAllowed()
      if (id !== undefined) throw new ScimError(404, "No such endpoint")
      return serviceProviderConfig(ctx.baseUrl)
    case "resourcetypes":
      if (method !== "GET") throw methodNotAllowed()
      return resourceTypes(ctx.baseUrl, id)
    case "schemas":
      if (method !== "GET") throw methodNotAllowed()
      return schemaEndpoint(ctx.baseUrl, id)
    case "users":
      if (id === undefined) {
        if (method === "GET") return listUsers(ctx, query)
        if (method === "POST") return createUser(ctx, body)
        throw methodNotAllowed()
      }
      if (id === ".search") throw new ScimError(501, "Searching with POST is not supported; use GET with filter")
      if (method === "GET") return getUser(ctx, id, query)
      if (method === "PUT") return replaceUser(ctx, id, body)
      if (method === "PATCH") return patchUser(ctx, id, body)
      if (method === "DELETE") return deleteUser(ctx, id)
      throw methodNotAllowed()
    case "groups":
      if (id === undefined) {
        if (method === "GET") return listGroups(ctx, query)
        if (method === "POST") return createGroup(ctx, body)
        throw methodNotAllowed()
      }
      if (id === ".search") throw new ScimError(501, "Searching with POST is not supported; use GET with filter")
      if (method === "GET") return getGroup(ctx, id, query)
      if (method === "PUT") return replaceGroup(ctx, id, body)
      if (method === "PATCH") return patchGroup(ctx, id, body)
      if (method === "DELETE") return deleteGroup(ctx, id)
      throw methodNotAllowed()
    case "bulk":
    case "me":
      throw new ScimError(501, `/${resource} is not supported`)
    default:
      throw new ScimError(404, "No such endpoint")
  }
}

/** What {@link handleScimRequest} needs: the SSO store (tokens) and the directory of a token's organization. */
export interface ScimEndpointOptions {
  store: SsoStore
  directoryFor(token: ScimToken): ScimDirectory | Promise<ScimDirectory>
  now?: () => Date
  /** Told of failures answered 503 before a directory exists (the token store down). */
  reportError?(error: unknown): void
}

/**
 * Authenticates a SCIM request by its bearer token, checks the token is one of the
 * connection the URL names (`/auth/sso/scim/<connection id>/v2/…`), and answers it with
 * {@link scimRequest} for the token's organization. A missing, unknown or revoked token, or
 * one of another connection, is a 401 with `WWW-Authenticate`.
 *
 * @example
 * ```ts
 * const res = await handleScimRequest(
 *   { store, directoryFor: (token) => directoryOf(token.organizationId, token.connectionId) },
 *   { authorization: req.headers.get("authorization"), connectionId: params.connection, method: "GET", path: ["Users"], query, body: undefined, baseUrl },
 * )
 * ```
 */
export async function handleScimRequest(options: ScimEndpointOptions, request: ScimRequest & { authorization: string | null | undefined; connectionId: string }): Promise<ScimResponse> {
  let directory: ScimDirectory
  try {
    const token = await authenticateScim(options.store, request.authorization, options.now?.())
    // A valid token of another connection is refused like a wrong one: it says nothing about this endpoint.
    if (token.connectionId !== request.connectionId) throw new ScimError(401, "The bearer token is not valid", undefined, { "WWW-Authenticate": `Bearer realm="SCIM", error="invalid_token"` })
    directory = await options.directoryFor(token)
    if (directory.organizationId !== token.organizationId) throw new Error("directoryFor returned another organization's directory")
  } catch (error) {
    return failure(error, options.reportError)
  }
  return scimRequest(directory, request, options.now ? { now: options.now } : {})
}
