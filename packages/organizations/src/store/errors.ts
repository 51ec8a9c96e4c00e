/**
 * The store's own errors. Expected outcomes (a taken slug, the last owner) are values of the
 * store's methods; these are for calls that break the contract's preconditions.
 * @module
 */

/** The stable discriminants of the store's errors. */
export type OrganizationStoreErrorType = "MissingOrganization"

/** Base of the store's errors: `type` names the case, for `switch` without message matching. */
export class OrganizationStoreError extends Error {
  readonly type: OrganizationStoreErrorType
  constructor(type: OrganizationStoreErrorType, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = type
    this.type = type
  }
}

/**
 * An invitation or an active-organization mark named an organization that does not exist
 * (never created, or deleted meanwhile). SQL stores reject the same call through their
 * foreign keys, with the database's own error.
 */
export class MissingOrganization extends OrganizationStoreError {
  constructor(organizationId: string) {
    super("MissingOrganization", `no organization with id ${JSON.stringify(organizationId)}`)
  }
}
