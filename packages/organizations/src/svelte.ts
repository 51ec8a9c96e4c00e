/**
 * `@portcullis/organizations/svelte`: the React hooks' equivalents for Svelte and SvelteKit —
 * stores (the Svelte store contract: `subscribe(run)` calls `run` at once and on every
 * change, and returns the unsubscriber) over the browser client. Nothing of Svelte is
 * imported: a store is a contract, so `$organizations` works in any Svelte version.
 *
 * @example
 * ```svelte
 * <script lang="ts">
 *   import { organizationsStore, activeOrganizationStore } from "@portcullis/organizations/svelte"
 *   const organizations = organizationsStore({ basePath: "/auth" })
 *   const active = activeOrganizationStore({ basePath: "/auth" })
 * </script>
 * <select value={$active.data?.id ?? ""} on:change={(e) => active.switchActive(e.currentTarget.value || null)}>
 *   {#each $organizations.data?.organizations ?? [] as o}<option value={o.id}>{o.name}</option>{/each}
 * </select>
 * ```
 * @module
 */
import { organizationsClient, type MemberDetails, type OrganizationDetails, type OrganizationsClient, type OrganizationsClientOptions, type OrganizationSummary, type Snapshot } from "./client.js"

export { organizationsClient, OrganizationsClientError } from "./client.js"
export type { OrganizationsClient, OrganizationsClientOptions, Snapshot } from "./client.js"

/** A Svelte readable store of a snapshot, with `refresh()`. */
export interface SnapshotStore<T> {
  subscribe(run: (value: Snapshot<T>) => void): () => void
  refresh(): Promise<void>
}

/** Which client the stores use: `client`, or one made from the options (`basePath` default `/auth` for SvelteKit). */
export type StoreOptions = OrganizationsClientOptions & { client?: OrganizationsClient }

const clientOf = (options: StoreOptions = {}) => options.client ?? organizationsClient({ basePath: "/auth", ...options })

function storeOf<T>(client: OrganizationsClient, key: string, load: () => Promise<T>): SnapshotStore<T> {
  const watched = client.watch(key, load)
  return {
    subscribe(run) {
      run(watched.snapshot())
      return watched.subscribe(() => run(watched.snapshot()))
    },
    refresh: () => watched.refresh(),
  }
}

/** The signed-in user's organizations (with the role in each) and the active one's id; with the changes a team switcher needs. */
export function organizationsStore(options?: StoreOptions): SnapshotStore<{ organizations: OrganizationSummary[]; active: string | null }> & Pick<OrganizationsClient, "create" | "switchActive" | "leave"> {
  const client = clientOf(options)
  return { ...storeOf(client, "list", () => client.list()), create: client.create, switchActive: client.switchActive, leave: client.leave }
}

/** The session's active organization with the user's role (`null`: none), and the switch. */
export function activeOrganizationStore(options?: StoreOptions): SnapshotStore<OrganizationSummary | null> & Pick<OrganizationsClient, "switchActive"> {
  const client = clientOf(options)
  return { ...storeOf(client, "active", () => client.active()), switchActive: client.switchActive }
}

/** One organization with its members, and the changes a team page needs. */
export function organizationStore(id: string, options?: StoreOptions) {
  const client = clientOf(options)
  const store = storeOf<{ organization: OrganizationDetails; members: MemberDetails[] }>(client, `organization:${id}`, async () => {
    const [organization, members] = await Promise.all([client.get(id), client.members(id)])
    return { organization, members }
  })
  return {
    ...store,
    update: (patch: Parameters<OrganizationsClient["update"]>[1]) => client.update(id, patch),
    invite: (input: Parameters<OrganizationsClient["invite"]>[1]) => client.invite(id, input),
    setRole: (userId: string, role: string) => client.setRole(id, userId, role),
    removeMember: (userId: string) => client.removeMember(id, userId),
  }
}
