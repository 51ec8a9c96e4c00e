/**
 * SCIM records as resources: rendered with `meta` (location, version), projected by
 * `attributes`/`excludedAttributes`, paged by `startIndex`/`count`, and versions compared
 * with `If-Match`.
 * @module
 */
import type { ScimGroup, ScimUser } from "../store/types.js"
import { badRequest, ScimError, SCIM_CONTENT_TYPE, type ScimResponse } from "./errors.js"
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA, type ResourceSchema } from "./schema.js"

type Json = Record<string, unknown>

/** Pages never hold more than this many resources, whatever `count` asks (RFC 7644 §3.4.2.4 lets the server cap it). */
export const MAX_PAGE_SIZE = 200
const DEFAULT_PAGE_SIZE = 100
const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"

export const etagOf = (version: number) => `W/"${version}"`

const meta = (resourceType: string, location: string, r: { createdAt: Date; updatedAt: Date; version: number }) => ({
  resourceType,
  created: r.createdAt.toISOString(),
  lastModified: r.updatedAt.toISOString(),
  location,
  version: etagOf(r.version),
})

/** A user's editable attributes in canonical JSON (what PATCH applies to and filters read, without `meta`). */
export function userJson(user: ScimUser): Json {
  const json: Json = { ...structuredClone(user.attributes), userName: user.userName, active: user.active }
  if (user.externalId !== null) json.externalId = user.externalId
  return json
}

/** A user as a SCIM resource; `groups` lists the organization's SCIM groups it is in. */
export function renderUser(user: ScimUser, baseUrl: string, groups: ScimGroup[]): Json {
  const member = groups.filter((g) => g.members.includes(user.id))
  return {
    schemas: ENTERPRISE_SCHEMA in user.attributes ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: user.id,
    ...userJson(user),
    ...(member.length > 0 ? { groups: member.map((g) => ({ value: g.id, display: g.displayName, $ref: `${baseUrl}/Groups/${g.id}`, type: "direct" })) } : {}),
    meta: meta("User", `${baseUrl}/Users/${user.id}`, user),
  }
}

/** A group's editable attributes in canonical JSON. */
export function groupJson(group: ScimGroup): Json {
  const json: Json = { displayName: group.displayName }
  if (group.externalId !== null) json.externalId = group.externalId
  if (group.members.length > 0) json.members = group.members.map((value) => ({ value }))
  return json
}

/** A group as a SCIM resource. */
export function renderGroup(group: ScimGroup, baseUrl: string): Json {
  const json = groupJson(group)
  if (json.members) json.members = group.members.map((value) => ({ value, $ref: `${baseUrl}/Users/${value}`, type: "User" }))
  return { schemas: [GROUP_SCHEMA], id: group.id, ...json, meta: meta("Group", `${baseUrl}/Groups/${group.id}`, group) }
}

/** Which top-level attributes to return (`attributes` / `excludedAttributes`, RFC 7644 §3.4.2.5). */
export function projection(schema: ResourceSchema, query: Record<string, string>): (resource: Json) => Json {
  const names = (text: string | undefined) =>
    (text ?? "")
      .split(",")
      .map((n) => n.trim().split(".")[0]!.toLowerCase())
      .filter(Boolean)
  const include = names(query.attributes)
  const exclude = names(query.excludedAttributes)
  if (include.length === 0 && exclude.length === 0) return (r) => r
  // Returned whatever is asked (RFC 7643 §7 "returned: always").
  const always = new Set(["id", "schemas", "meta", schema.name === "User" ? "username" : "displayname"])
  return (resource) => {
    const out: Json = {}
    for (const [key, value] of Object.entries(resource)) {
      const k = key.toLowerCase()
      if (always.has(k) || (include.length > 0 ? include.includes(k) : !exclude.includes(k))) out[key] = value
    }
    return out
  }
}

/** Reads `startIndex` (1-based, default 1) and `count` (default 100, at most {@link MAX_PAGE_SIZE}). */
export function pageOf(query: Record<string, string>): { startIndex: number; count: number } {
  const int = (name: string, fallback: number) => {
    const raw = query[name]
    if (raw === undefined || raw === "") return fallback
    if (!/^-?\d{1,9}$/.test(raw)) throw badRequest("invalidValue", `${name} must be an integer`)
    return Number(raw)
  }
  // RFC 7644 §3.4.2.4: a startIndex below 1 counts as 1, a negative count as 0.
  return { startIndex: Math.max(1, int("startIndex", 1)), count: Math.min(MAX_PAGE_SIZE, Math.max(0, int("count", DEFAULT_PAGE_SIZE))) }
}

/** A ListResponse of one page of `all`. */
export function listResponse(all: Json[], page: { startIndex: number; count: number }): ScimResponse {
  const resources = all.slice(page.startIndex - 1, page.startIndex - 1 + page.count)
  return {
    status: 200,
    body: { schemas: [LIST_SCHEMA], totalResults: all.length, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources },
    headers: { "Content-Type": SCIM_CONTENT_TYPE },
  }
}

/** A single resource's answer, with its ETag (and `Location` for a 201). */
export function resourceResponse(status: 200 | 201, resource: Json, version: number): ScimResponse {
  const headers: Record<string, string> = { "Content-Type": SCIM_CONTENT_TYPE, ETag: etagOf(version) }
  if (status === 201) headers.Location = (resource.meta as { location: string }).location
  return { status, body: resource, headers }
}

/** Refuses with 412 when `If-Match` names no version the resource has (`*` matches any). */
export function checkIfMatch(ifMatch: string | undefined, version: number): void {
  if (ifMatch === undefined || ifMatch.trim() === "" || ifMatch.trim() === "*") return
  // Weak comparison (RFC 9110 §8.8.3.2): `W/"3"` and `"3"` name the same version.
  const wanted = ifMatch.split(",").map((t) => t.trim().replace(/^W\//i, ""))
  if (!wanted.includes(`"${version}"`)) throw new ScimError(412, "The resource has changed since the version given in If-Match")
}
