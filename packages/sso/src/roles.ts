/**
 * From what an IdP says about a user (OIDC claims, SAML attributes) to their role in the
 * organization, by the connection's rules: the first rule whose claim has the value wins, else
 * the connection's default role. An IdP can never make anyone an owner: ownership is given by
 * people in the app, so a compromised or misconfigured IdP group cannot take an organization.
 * @module
 */
import { ExtensionRequestError } from "@portcullis/core/extension"
import type { RoleRule } from "./store/types.js"

/** The largest rule list a connection keeps: rules are read at every SSO sign-in. */
export const MAX_RULES = 50

const ROLE = /^[a-z][a-z0-9_-]{0,63}$/

/** The values of `claim` in `attributes`: a string, a number or boolean, or a list of them. */
export function claimValues(attributes: Record<string, unknown>, claim: string): string[] {
  const value = Object.hasOwn(attributes, claim) ? attributes[claim] : undefined
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]
  return list.filter((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean").map(String)
}

/**
 * The role for a member with these attributes.
 *
 * @example
 * ```ts
 * roleFor([{ claim: "groups", value: "eng-admins", role: "admin" }], "member", { groups: ["eng", "eng-admins"] }) // "admin"
 * ```
 */
export function roleFor(rules: readonly RoleRule[], defaultRole: string, attributes: Record<string, unknown>): string {
  for (const rule of rules) if (claimValues(attributes, rule.claim).includes(rule.value)) return rule.role
  return defaultRole
}

/** A role name a rule may give: never `owner`. */
export function assignableRole(value: unknown, what: string): string {
  if (typeof value !== "string" || !ROLE.test(value)) throw new ExtensionRequestError("invalid-role", `${what} must be a role name (a-z, 0-9, _ and -)`, 422)
  if (value === "owner") throw new ExtensionRequestError("invalid-role", `${what} cannot be owner: an identity provider never makes anyone an owner`, 422)
  return value
}

/** Rules as a client sent them, checked. */
export function checkRules(value: unknown): RoleRule[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.length > MAX_RULES) throw new ExtensionRequestError("invalid-rules", `roleRules must be a list of at most ${MAX_RULES} rules`, 422)
  return value.map((rule, i) => {
    const { claim, value: expected, role } = (rule ?? {}) as Record<string, unknown>
    if (typeof claim !== "string" || !claim || claim.length > 256) throw new ExtensionRequestError("invalid-rules", `roleRules[${i}].claim must be a claim or attribute name`, 422)
    if (typeof expected !== "string" || !expected || expected.length > 256) throw new ExtensionRequestError("invalid-rules", `roleRules[${i}].value must be the value to match`, 422)
    return { claim, value: expected, role: assignableRole(role, `roleRules[${i}].role`) }
  })
}
