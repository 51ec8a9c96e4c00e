/**
 * `@portcullis/organizations/react`: hooks over the browser client — the user's
 * organizations, the active one, one organization with its members. Each reloads after any
 * change made through the same client (a switch, an invitation accepted). React is an
 * optional peer dependency, imported here only.
 *
 * @example
 * ```tsx
 * import { useActiveOrganization, useOrganizations } from "@portcullis/organizations/react"
 *
 * function TeamSwitcher() {
 *   const { data, switchActive } = useOrganizations()
 *   const active = useActiveOrganization()
 *   return (
 *     <select value={active.data?.id ?? ""} onChange={(e) => switchActive(e.target.value || null)}>
 *       {data?.organizations.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
 *     </select>
 *   )
 * }
 * ```
 * @module
 */
import { useCallback, useMemo, useSyncExternalStore } from "react"
import { organizationsClient, type MemberDetails, type OrganizationDetails, type OrganizationsClient, type OrganizationSummary, type Snapshot } from "./client.js"

export { organizationsClient, OrganizationsClientError } from "./client.js"
export type { OrganizationsClient, OrganizationsClientOptions, Snapshot } from "./client.js"

/** Which client the hooks use: by default one for `/api/auth`, made on first use. */
export interface HookOptions {
  client?: OrganizationsClient
}

let defaultClient: OrganizationsClient | undefined
const clientOf = (options?: HookOptions) => options?.client ?? (defaultClient ??= organizationsClient())

const idle: Snapshot<never> = Object.freeze({ data: undefined, error: undefined, loading: false })

function useWatched<T>(client: OrganizationsClient, key: string | null, load: () => Promise<T>): Snapshot<T> & { refresh(): Promise<void> } {
  // `load` is tied to the key: a new key is a new read, the same key the same cached one.
  const watched = useMemo(() => (key === null ? null : client.watch(key, load)), [client, key]) // eslint-disable-line react-hooks/exhaustive-deps
  const subscribe = useCallback((listener: () => void) => (watched ? watched.subscribe(listener) : () => {}), [watched])
  const snapshot = useSyncExternalStore(subscribe, () => (watched ? watched.snapshot() : idle), () => idle)
  const refresh = useCallback(() => (watched ? watched.refresh() : Promise.resolve()), [watched])
  return { ...snapshot, refresh }
}

/**
 * The signed-in user's organizations (with their role in each) and the active one's id,
 * plus the changes a team switcher needs.
 */
export function useOrganizations(options?: HookOptions) {
  const client = clientOf(options)
  const state = useWatched(client, "list", () => client.list())
  return {
    ...state,
    create: client.create,
    switchActive: client.switchActive,
    leave: client.leave,
  }
}

/** The session's active organization with the user's role (`null`: none), and the switch. */
export function useActiveOrganization(options?: HookOptions): Snapshot<OrganizationSummary | null> & { refresh(): Promise<void>; switchActive: OrganizationsClient["switchActive"] } {
  const client = clientOf(options)
  const state = useWatched(client, "active", () => client.active())
  return { ...state, switchActive: client.switchActive }
}

/** One organization with its members (`id` `null`: nothing loaded), and the changes a team page needs. */
export function useOrganization(id: string | null, options?: HookOptions) {
  const client = clientOf(options)
  const state = useWatched<{ organization: OrganizationDetails; members: MemberDetails[] }>(client, id === null ? null : `organization:${id}`, async () => {
    const [organization, members] = await Promise.all([client.get(id!), client.members(id!)])
    return { organization, members }
  })
  return {
    ...state,
    update: (patch: Parameters<OrganizationsClient["update"]>[1]) => client.update(id!, patch),
    invite: (input: Parameters<OrganizationsClient["invite"]>[1]) => client.invite(id!, input),
    setRole: (userId: string, role: string) => client.setRole(id!, userId, role),
    removeMember: (userId: string) => client.removeMember(id!, userId),
  }
}
