/**
 * `/Groups`: SCIM groups of the organization. Their members are provisioned users of the
 * same organization, and each change of membership or name sets the affected members' roles
 * again from the connection's role rules.
 * @module
 */
import { randomUUID } from "node:crypto"
import type { ScimGroup } from "../store/types.js"
import { audit, backoff, busy, MAX_ATTEMPTS, type ScimContext } from "./context.js"
import { badRequest, notFound, ScimError, type ScimResponse } from "./errors.js"
import { matches, parseFilter } from "./filter.js"
import { applyPatch, readOperations } from "./patch.js"
import { checkIfMatch, groupJson, listResponse, pageOf, projection, renderGroup, resourceResponse } from "./resources.js"
import { recomputeRoles } from "./roles.js"
import { GROUP, normalizeResource } from "./schema.js"

type Json = Record<string, unknown>

const MAX_NAME = 256
/** A group larger than this is refused (413): every member is a stored id and a role to set. */
export const MAX_MEMBERS = 10_000

/** The stored fields a group's JSON gives, checked; members must be users provisioned into this organization. */
async function groupFields(ctx: ScimContext, json: Json, known: ReadonlySet<string>): Promise<Pick<ScimGroup, "displayName" | "externalId" | "members">> {
  const { displayName, externalId, members } = json
  if (typeof displayName !== "string" || displayName.trim() === "") throw badRequest("invalidValue", "displayName is required")
  if (displayName.length > MAX_NAME) throw badRequest("invalidValue", `displayName is longer than ${MAX_NAME} characters`)
  if (externalId !== undefined && (typeof externalId !== "string" || externalId.length > MAX_NAME)) throw badRequest("invalidValue", "externalId must be a string")
  const ids = [...new Set(((members ?? []) as Json[]).map((m) => m.value))]
  if (ids.some((id) => typeof id !== "string")) throw badRequest("invalidValue", "Each member needs a value (the user's id)")
  if (ids.length > MAX_MEMBERS) throw new ScimError(413, `A group may have at most ${MAX_MEMBERS} members`)
  for (const id of ids as string[]) {
    // Only users of this organization: a member id of another organization must not pick up a role here.
    if (!known.has(id) && !(await ctx.dir.store.getScimUser(ctx.dir.organizationId, id))) throw badRequest("invalidValue", `Member ${JSON.stringify(id.slice(0, 64))} is not a user of this organization`)
  }
  return { displayName, externalId: (externalId as string | undefined) ?? null, members: ids as string[] }
}

function objectBody(body: unknown): Json {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw badRequest("invalidSyntax", "The body must be a JSON object")
  return body as Json
}

const uniqueness = () => new ScimError(409, "displayName is already taken in this organization", "uniqueness")

/** GET /Groups */
export async function listGroups(ctx: ScimContext, query: Record<string, string>): Promise<ScimResponse> {
  const filter = query.filter !== undefined ? parseFilter(query.filter, GROUP) : null
  const page = pageOf(query)
  const groups = await ctx.dir.store.listScimGroups(ctx.dir.organizationId)
  const project = projection(GROUP, query)
  const rendered = groups.map((g) => renderGroup(g, ctx.baseUrl)).filter((r) => !filter || matches(r, filter))
  return listResponse(rendered.map(project), page)
}

/** GET /Groups/:id (Entra ID asks with `excludedAttributes=members`). */
export async function getGroup(ctx: ScimContext, id: string, query: Record<string, string>): Promise<ScimResponse> {
  const group = await ctx.dir.store.getScimGroup(ctx.dir.organizationId, id)
  if (!group) throw notFound("Group", id)
  return resourceResponse(200, projection(GROUP, query)(renderGroup(group, ctx.baseUrl)), group.version)
}

/** POST /Groups */
export async function createGroup(ctx: ScimContext, body: unknown): Promise<ScimResponse> {
  const fields = await groupFields(ctx, normalizeResource(GROUP, objectBody(body)), new Set())
  const now = ctx.now()
  const group: ScimGroup = { id: randomUUID(), organizationId: ctx.dir.organizationId, ...fields, version: 1, createdAt: now, updatedAt: now }
  if (!(await ctx.dir.store.createScimGroup(group))) throw uniqueness()
  await recomputeRoles(ctx, group.members)
  await audit(ctx, "group.created", { groupId: group.id, members: group.members.length })
  return resourceResponse(201, renderGroup(group, ctx.baseUrl), group.version)
}

/**
 * PUT and PATCH: read, change, store with the version read (a lost race is tried again
 * unless the client pinned a version), then set the roles of the members the change touched
 * — and of those the request names, so a retry after a failed role update finishes it.
 */
async function modify(ctx: ScimContext, id: string, named: (id: string) => boolean, change: (current: ScimGroup) => Promise<ScimGroup>): Promise<ScimResponse> {
  const { dir } = ctx
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await dir.store.getScimGroup(dir.organizationId, id)
    if (!current) throw notFound("Group", id)
    checkIfMatch(ctx.ifMatch, current.version)
    const next = await change(current)
    if (next.displayName !== current.displayName) {
      const all = await dir.store.listScimGroups(dir.organizationId)
      if (all.some((g) => g.id !== id && g.displayName === next.displayName)) throw uniqueness()
    }
    const stored = await dir.store.updateScimGroup({ ...next, updatedAt: ctx.now() }, current.version)
    if (stored === null) throw notFound("Group", id)
    if (stored === "conflict") {
      if (ctx.ifMatch !== undefined) throw new ScimError(412, "The resource has changed since the version given in If-Match")
      await backoff()
      continue
    }
    const before = new Set(current.members)
    const after = new Set(stored.members)
    const renamed = stored.displayName !== current.displayName
    const touched = [...before, ...after].filter((m) => renamed || before.has(m) !== after.has(m) || named(m))
    await recomputeRoles(ctx, touched)
    await audit(ctx, "group.updated", { groupId: id, members: stored.members.length })
    return resourceResponse(200, renderGroup(stored, ctx.baseUrl), stored.version)
  }
  throw busy()
}

/** PUT /Groups/:id */
export async function replaceGroup(ctx: ScimContext, id: string, body: unknown): Promise<ScimResponse> {
  const json = normalizeResource(GROUP, objectBody(body))
  const text = JSON.stringify(body)
  return modify(ctx, id, (m) => text.includes(m), async (current) => ({ ...current, ...(await groupFields(ctx, json, new Set(current.members))) }))
}

/** PATCH /Groups/:id (members add/remove, as Okta and Entra ID send them). */
export async function patchGroup(ctx: ScimContext, id: string, body: unknown): Promise<ScimResponse> {
  const operations = readOperations(body)
  const text = JSON.stringify(operations)
  return modify(ctx, id, (m) => text.includes(m), async (current) => ({ ...current, ...(await groupFields(ctx, applyPatch(GROUP, groupJson(current), operations), new Set(current.members))) }))
}

/** DELETE /Groups/:id: its former members' roles are set without it. */
export async function deleteGroup(ctx: ScimContext, id: string): Promise<ScimResponse> {
  const current = await ctx.dir.store.getScimGroup(ctx.dir.organizationId, id)
  if (!current) throw notFound("Group", id)
  checkIfMatch(ctx.ifMatch, current.version)
  await ctx.dir.store.deleteScimGroup(ctx.dir.organizationId, id)
  await recomputeRoles(ctx, current.members)
  await audit(ctx, "group.deleted", { groupId: id })
  return { status: 204 }
}
