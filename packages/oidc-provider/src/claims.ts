/**
 * The claims a user's scopes release (OpenID Connect Core §5.4): `profile` → `name`, `email` →
 * `email` and `email_verified`, `organization` → the user's organizations with their roles
 * (with the organizations store); then the app's `claims(user, scopes)` adds or overrides.
 * @module
 */
import type { Locals } from "./locals.js"

/** The claims for `userId` under `scopes`; `null` when the user no longer exists. */
export async function userClaims(locals: Locals, userId: string, scopes: string[]): Promise<Record<string, unknown> | null> {
  const user = await locals.getUser(userId)
  if (!user) return null
  const claims: Record<string, unknown> = { sub: user.id }
  if (scopes.includes("profile") && user.name) claims.name = user.name
  if (scopes.includes("email") && user.email) {
    claims.email = user.email
    claims.email_verified = !!user.emailVerified
  }
  if (scopes.includes("organization") && locals.options.organizations) {
    const memberships = await locals.options.organizations.listOrganizations(userId)
    claims.organizations = memberships.map(({ organization, role }) => ({ id: organization.id, ...(organization.slug && { slug: organization.slug }), role }))
  }
  if (locals.options.claims) {
    const extra = await locals.options.claims(user, scopes)
    // `sub` is the provider's: an app's claim may not change whom the token is about.
    for (const [name, value] of Object.entries(extra ?? {})) if (name !== "sub" && name !== "iss" && name !== "aud") claims[name] = value
  }
  return claims
}
