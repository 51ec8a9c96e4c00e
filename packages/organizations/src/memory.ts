/**
 * `@portcullis/organizations/memory`: organizations kept in process memory, for tests,
 * demos and single-process prototypes.
 *
 * @example
 * ```ts
 * import { organizations } from "@portcullis/organizations"
 * import { memoryOrganizationStore } from "@portcullis/organizations/memory"
 *
 * const orgs = organizations({ store: memoryOrganizationStore() })
 * ```
 * @module
 */
export { memoryOrganizationStore } from "./store/memory.js"
