/**
 * `/Users`: provisioning a user links or creates the Portcullis account of an address in one
 * of the organization's verified domains and makes it a member; deprovisioning
 * (`active: false`, or DELETE) ends the membership and the user's sessions at once.
 * @module
 */
import type { ScimUser } from "../store/types.js"
import { audit, backoff, busy, MAX_ATTEMPTS, type ScimContext } from "./context.js"
import { badRequest, notFound, ScimError, type ScimResponse } from "./errors.js"
import { matches, parseFilter, type Filter } from "./filter.js"
import { applyPatch, readOperations } from "./patch.js"
import { checkIfMatch, listResponse, pageOf, projection, renderUser, resourceResponse, userJson } from "./resources.js"
import { normalizeResource, USER } from "./schema.js"
import { groupNamesOf } from "./roles.js"

type Json = Record<string, unknown>

const MAX_NAME = 256

/** The stored fields a resource's JSON gives, checked. */
/** `active` is `undefined` when the body leaves it out: a create makes the user active, a replace keeps what it was. */
function userFields(json: Json): Pick<ScimUser, "userName" | "externalId" | "attributes"> & { active: boolean | undefined } {
  const { userName, externalId, active, ...attributes } = json
  if (typeof userName !== "string" || userName.trim() === "") throw badRequest("invalidValue", "userName is required")
  if (userName.length > MAX_NAME) throw badRequest("invalidValue", `userName is longer than ${MAX_NAME} characters`)
  if (externalId !== undefined && (typeof externalId !== "string" || externalId.length > MAX_NAME)) throw badRequest("invalidValue", "externalId must be a string")
  if (active !== undefined && typeof active !== "boolean") throw badRequest("invalidValue", "active must be a boolean")
  return { userName, externalId: (externalId as string | undefined) ?? null, active: active as boolean | undefined, attributes }
}

/** The address a user is provisioned by: the primary email, else the work one, else the first, else a userName that is an address. */
function emailOf(json: Json): string | null {
  const emails = (Array.isArray(json.emails) ? json.emails : []) as Json[]
  const pick = emails.find((e) => e.primary === true) ?? emails.find((e) => e.type === "work") ?? emails[0]
  const value = typeof pick?.value === "string" ? pick.value : typeof json.userName === "string" ? json.userName : null
  return value && /^[^\s@]+@[^\s@]+$/.test(value) ? value : null
}

function nameOf(json: Json): string | null {
  const name = (json.name ?? {}) as Json
  if (typeof name.formatted === "string") return name.formatted
  const parts = [name.givenName, name.familyName].filter((p): p is string => typeof p === "string")
  if (parts.length > 0) return parts.join(" ")
  return typeof json.displayName === "string" ? json.displayName : null
}

/** The body of a POST or PUT, as an object. */
function objectBody(body: unknown): Json {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw badRequest("invalidSyntax", "The body must be a JSON object")
  return body as Json
}

/**
 * `userName eq "…"` (what Okta and Entra ID look users up by; unique per organization) and
 * `id eq "…"` are answered by the store's lookup; other filters read every user of the
 * organization (`externalId` is not unique, so it is not a lookup).
 */
async function candidates(ctx: ScimContext, filter: Filter | null): Promise<ScimUser[]> {
  const org = ctx.dir.organizationId
  if (filter?.kind === "compare" && filter.op === "eq" && typeof filter.value === "string" && !filter.attr.extension && !filter.attr.sub) {
    if (filter.attr.def.name === "userName") return [await ctx.dir.store.findScimUser(org, { userName: filter.value })].filter((u) => u !== null)
    if (filter.attr.def.name === "id") return [await ctx.dir.store.getScimUser(org, filter.value)].filter((u) => u !== null)
  }
  return ctx.dir.store.listScimUsers(org)
}

/** GET /Users */
export async function listUsers(ctx: ScimContext, query: Record<string, string>): Promise<ScimResponse> {
  const filter = query.filter !== undefined ? parseFilter(query.filter, USER) : null
  const page = pageOf(query)
  const [users, groups] = await Promise.all([candidates(ctx, filter), ctx.dir.store.listScimGroups(ctx.dir.organizationId)])
  const project = projection(USER, query)
  const rendered = users.map((u) => renderUser(u, ctx.baseUrl, groups)).filter((r) => !filter || matches(r, filter))
  return listResponse(rendered.map(project), page)
}

/** GET /Users/:id */
export async function getUser(ctx: ScimContext, id: string, query: Record<string, string>): Promise<ScimResponse> {
  const user = await ctx.dir.store.getScimUser(ctx.dir.organizationId, id)
  if (!user) throw notFound("User", id)
  const groups = await ctx.dir.store.listScimGroups(ctx.dir.organizationId)
  return resourceResponse(200, projection(USER, query)(renderUser(user, ctx.baseUrl, groups)), user.version)
}

/** The Portcullis user with this address, made when there is none (a concurrent request may make it first). */
async function accountFor(ctx: ScimContext, email: string, name: string | null): Promise<{ id: string; linked: boolean }> {
  const found = await ctx.dir.findUserByEmail(email)
  if (found) return { id: found.id, linked: true }
  try {
    return { id: (await ctx.dir.createUser({ email, name })).id, linked: false }
  } catch (error) {
    // The adapter's unique index refused a second user with this address: another request made it; link to it.
    const raced = await ctx.dir.findUserByEmail(email)
    if (raced) return { id: raced.id, linked: true }
    throw error
  }
}

/** POST /Users */
export async function createUser(ctx: ScimContext, body: unknown): Promise<ScimResponse> {
  const { dir } = ctx
  const json = normalizeResource(USER, objectBody(body))
  const fields = userFields(json)
  const email = emailOf(json)
  if (!email) throw badRequest("invalidValue", "The user needs an email address (emails, or a userName that is one)")
  // Only addresses of the organization's verified domains: SCIM must not make it a way to take over someone else's account.
  if (!(await dir.emailAllowed(email))) throw badRequest("invalidValue", "The email address is not of a verified domain of this organization")
  if (await dir.store.findScimUser(dir.organizationId, { userName: fields.userName })) throw uniqueness()

  const account = await accountFor(ctx, email, nameOf(json))
  const now = ctx.now()
  const record: ScimUser = { id: account.id, organizationId: dir.organizationId, ...fields, active: fields.active ?? true, version: 1, createdAt: now, updatedAt: now }
  // The store's insert is the one atomic claim of the userName (and of the account in this organization).
  if (!(await dir.store.createScimUser(record))) throw uniqueness("This userName, or this user, is already provisioned in the organization")
  if (record.active) {
    try {
      await dir.addMember(record.id, dir.roleFor([]))
    } catch (error) {
      // Undo the record, so the client's retry provisions again instead of meeting a 409 for a user who is not a member.
      await dir.store.deleteScimUser(dir.organizationId, record.id).catch(() => {})
      throw error
    }
  }
  await audit(ctx, "user.created", { userId: record.id, linked: account.linked, active: record.active })
  return resourceResponse(201, renderUser(record, ctx.baseUrl, []), record.version)
}

const uniqueness = (detail = "userName is already taken in this organization") => new ScimError(409, detail, "uniqueness")

/**
 * Makes a user's membership follow `active`, then stores `next`. Membership changes come
 * first and are idempotent, so a client's retry after a failure finishes the job; a failed
 * write after a deactivation leaves the user out, which is the safe side.
 */
async function save(ctx: ScimContext, current: ScimUser, next: ScimUser): Promise<ScimUser | "conflict"> {
  const { dir } = ctx
  if (next.userName.toLowerCase() !== current.userName.toLowerCase()) {
    const other = await dir.store.findScimUser(dir.organizationId, { userName: next.userName })
    if (other && other.id !== current.id) throw uniqueness()
  }
  if (!next.active) {
    await dir.removeMember(current.id)
    await dir.endSessions(current.id)
  } else if (!current.active) {
    const groups = await dir.store.listScimGroups(dir.organizationId)
    await dir.addMember(current.id, dir.roleFor(groupNamesOf(groups, current.id)))
  }
  const stored = await dir.store.updateScimUser({ ...next, updatedAt: ctx.now() }, current.version)
  if (stored === null) throw notFound("User", current.id)
  if (stored === "conflict") {
    // The store says "conflict" for a lost version race and for a taken userName alike: tell them apart.
    const fresh = await dir.store.getScimUser(dir.organizationId, current.id)
    if (fresh && fresh.version === current.version) throw uniqueness()
    return "conflict"
  }
  if (current.active !== stored.active) await audit(ctx, stored.active ? "user.reactivated" : "user.deactivated", { userId: stored.id })
  else await audit(ctx, "user.updated", { userId: stored.id })
  return stored
}

/** PUT and PATCH: read, change, save; a lost race is retried unless the client pinned a version with If-Match. */
async function modify(ctx: ScimContext, id: string, change: (current: ScimUser) => ScimUser): Promise<ScimResponse> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await ctx.dir.store.getScimUser(ctx.dir.organizationId, id)
    if (!current) throw notFound("User", id)
    checkIfMatch(ctx.ifMatch, current.version)
    const stored = await save(ctx, current, change(current))
    if (stored !== "conflict") {
      const groups = await ctx.dir.store.listScimGroups(ctx.dir.organizationId)
      return resourceResponse(200, renderUser(stored, ctx.baseUrl, groups), stored.version)
    }
    if (ctx.ifMatch !== undefined) throw new ScimError(412, "The resource has changed since the version given in If-Match")
    await backoff()
  }
  throw busy()
}

/** PUT /Users/:id */
export function replaceUser(ctx: ScimContext, id: string, body: unknown): Promise<ScimResponse> {
  const fields = userFields(normalizeResource(USER, objectBody(body)))
  // A replace that leaves `active` out must not give a deactivated user their access back.
  return modify(ctx, id, (current) => ({ ...current, ...fields, active: fields.active ?? current.active }))
}

/** PATCH /Users/:id */
export function patchUser(ctx: ScimContext, id: string, body: unknown): Promise<ScimResponse> {
  const operations = readOperations(body)
  return modify(ctx, id, (current) => {
    const fields = userFields(applyPatch(USER, userJson(current), operations))
    // Removing `active` is no way to reactivate: absent counts as unchanged.
    return { ...current, ...fields, active: fields.active ?? current.active }
  })
}

/** DELETE /Users/:id: the membership and sessions end, then the record goes (and with it, its group memberships). */
export async function deleteUser(ctx: ScimContext, id: string): Promise<ScimResponse> {
  const { dir } = ctx
  const current = await dir.store.getScimUser(dir.organizationId, id)
  if (!current) throw notFound("User", id)
  checkIfMatch(ctx.ifMatch, current.version)
  await dir.removeMember(id)
  await dir.endSessions(id)
  await dir.store.deleteScimUser(dir.organizationId, id)
  await audit(ctx, "user.deleted", { userId: id })
  return { status: 204 }
}
