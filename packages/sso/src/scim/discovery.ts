/**
 * The discovery endpoints (RFC 7644 §4): `/ServiceProviderConfig`, `/ResourceTypes` and
 * `/Schemas`, built from the same attribute table the server reads requests with.
 * @module
 */
import { ScimError, SCIM_CONTENT_TYPE, type ScimResponse } from "./errors.js"
import { MAX_PAGE_SIZE } from "./resources.js"
import { ENTERPRISE_SCHEMA, GROUP, USER, type AttributeDef, type ResourceSchema } from "./schema.js"

const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
const json = (body: object): ScimResponse => ({ status: 200, body, headers: { "Content-Type": SCIM_CONTENT_TYPE } })
const list = (resources: object[]) => json({ schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources })

/** GET /ServiceProviderConfig */
export function serviceProviderConfig(baseUrl: string): ScimResponse {
  return json({
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    documentationUri: "https://github.com/portcullis-auth/portcullis/blob/main/docs/sso.md",
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE_SIZE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [{ type: "oauthbearertoken", name: "Bearer token", description: `A SCIM token of the organization's connection, as Authorization: Bearer scim_…`, primary: true }],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  })
}

function resourceType(schema: ResourceSchema, baseUrl: string) {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: schema.name,
    name: schema.name,
    endpoint: `/${schema.name}s`,
    schema: schema.schema,
    schemaExtensions: Object.keys(schema.extensions).map((urn) => ({ schema: urn, required: false })),
    meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/${schema.name}` },
  }
}

/** GET /ResourceTypes and /ResourceTypes/:name */
export function resourceTypes(baseUrl: string, name?: string): ScimResponse {
  const all = [USER, GROUP]
  if (name === undefined) return list(all.map((s) => resourceType(s, baseUrl)))
  const one = all.find((s) => s.name.toLowerCase() === name.toLowerCase())
  if (!one) throw new ScimError(404, "No such resource type")
  return json(resourceType(one, baseUrl))
}

function attribute(def: AttributeDef): object {
  return {
    name: def.name,
    type: def.type,
    multiValued: def.multiValued ?? false,
    required: def.required ?? false,
    caseExact: def.caseExact ?? false,
    mutability: def.mutability ?? "readWrite",
    returned: def.name === "id" ? "always" : "default",
    uniqueness: def.uniqueness ?? (def.name === "id" ? "server" : "none"),
    ...(def.subAttributes ? { subAttributes: def.subAttributes.map(attribute) } : {}),
  }
}

function schemas(baseUrl: string): object[] {
  const one = (id: string, name: string, attrs: AttributeDef[]) => ({
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id,
    name,
    attributes: attrs.filter((a) => a.name !== "meta").map(attribute),
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${id}` },
  })
  return [one(USER.schema, "User", USER.attributes), one(ENTERPRISE_SCHEMA, "EnterpriseUser", USER.extensions[ENTERPRISE_SCHEMA]!), one(GROUP.schema, "Group", GROUP.attributes)]
}

/** GET /Schemas and /Schemas/:urn */
export function schemaEndpoint(baseUrl: string, id?: string): ScimResponse {
  const all = schemas(baseUrl) as Array<{ id: string }>
  if (id === undefined) return list(all)
  const one = all.find((s) => s.id === id)
  if (!one) throw new ScimError(404, "No such schema")
  return json(one)
}
