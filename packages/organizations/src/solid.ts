/**
 * `@portcullis/organizations/solid`: the React hooks' equivalents for SolidStart — signals
 * over the browser client, made with Solid's `from()` so they follow Solid's ownership
 * (unsubscribed when the owning component is disposed). `solid-js` is an optional peer
 * dependency, imported here only.
 *
 * @example
 * ```tsx
 * import { createOrganizations, createActiveOrganization } from "@portcullis/organizations/solid"
 *
 * function TeamSwitcher() {
 *   const organizations = createOrganizations()
 *   const active = createActiveOrganization()
 *   return (
 *     <select value={active.state()?.data?.id ?? ""} onChange={(e) => active.switchActive(e.currentTarget.value || null)}>
 *       <For each={organizations.state()?.data?.organizations ?? []}>{(o) => <option value={o.id}>{o.name}</option>}</For>
 *     </select>
 *   )
 * }
 * ```
 * @module
 */
import { from, type Accessor } from "solid-js"
import { organizationsClient, type MemberDetails, type OrganizationDetails, type OrganizationsClient, type OrganizationsClientOptions, type OrganizationSummary, type Snapshot } from "./client.js"

export { organizationsClient, OrganizationsClientError } from "./client.js"
export type { OrganizationsClient, OrganizationsClientOptions, Snapshot } from "./client.js"

/** Which client the primitives use: `client`, or one made from the options (`basePath` default `/api/auth`, as SolidStart's). */
export type PrimitiveOptions = OrganizationsClientOptions & { client?: OrganizationsClient }

/** A snapshot as a Solid accessor, with `refresh()`. */
export interface SnapshotSignal<T> {
  state: Accessor<Snapshot<T> | undefined>
  refresh(): Promise<void>
}

const clientOf = (options: PrimitiveOptions = {}) => options.client ?? organizationsClient(options)

function signalOf<T>(client: OrganizationsClient, key: string, load: () => Promise<T>): SnapshotSignal<T> {
  const watched = client.watch(key, load)
  const state = from<Snapshot<T>>((set) => {
    set(watched.snapshot())
    return watched.subscribe(() => set(watched.snapshot()))
  })
  return { state, refresh: () => watched.refresh() }
}

/** The signed-in user's organizations and the active one's id; with the changes a team switcher needs. */
export function createOrganizations(options?: PrimitiveOptions): SnapshotSignal<{ organizations: OrganizationSummary[]; active: string | null }> & Pick<OrganizationsClient, "create" | "switchActive" | "leave"> {
  const client = clientOf(options)
  return { ...signalOf(client, "list", () => client.list()), create: client.create, switchActive: client.switchActive, leave: client.leave }
}

/** The session's active organization with the user's role (`null`: none), and the switch. */
export function createActiveOrganization(options?: PrimitiveOptions): SnapshotSignal<OrganizationSummary | null> & Pick<OrganizationsClient, "switchActive"> {
  const client = clientOf(options)
  return { ...signalOf(client, "active", () => client.active()), switchActive: client.switchActive }
}

/** One organization with its members, and the changes a team page needs. */
export function createOrganization(id: string, options?: PrimitiveOptions) {
  const client = clientOf(options)
  const signal = signalOf<{ organization: OrganizationDetails; members: MemberDetails[] }>(client, `organization:${id}`, async () => {
    const [organization, members] = await Promise.all([client.get(id), client.members(id)])
    return { organization, members }
  })
  return {
    ...signal,
    update: (patch: Parameters<OrganizationsClient["update"]>[1]) => client.update(id, patch),
    invite: (input: Parameters<OrganizationsClient["invite"]>[1]) => client.invite(id, input),
    setRole: (userId: string, role: string) => client.setRole(id, userId, role),
    removeMember: (userId: string) => client.removeMember(id, userId),
  }
}
