/**
 * `@portcullis/organizations/client`: the browser's functions over the organizations
 * routes. Each change sends the CSRF token (read once from `<basePath>/csrf`) as the
 * `X-CSRF-Token` header with a JSON body, as core expects of a client library. Refusals
 * throw {@link OrganizationsClientError} with the route's stable `code`.
 *
 * @example
 * ```ts
 * import { organizationsClient } from "@portcullis/organizations/client"
 *
 * const orgs = organizationsClient({ basePath: "/api/auth" })
 * const { organizations, active } = await orgs.list()
 * const acme = await orgs.create({ name: "Acme" })
 * await orgs.invite(acme.id, { email: "zoe@example.com", role: "admin" })
 * await orgs.switchActive(acme.id)
 * ```
 * @module
 */
import type { CreateOrganizationInput, InvitationDetails, MemberDetails, OrganizationDetails, OrganizationSummary, UpdateOrganizationInput } from "./operations.js"

export type { CreateOrganizationInput, InvitationDetails, MemberDetails, OrganizationDetails, OrganizationSummary, UpdateOrganizationInput }

/** A refusal of a route: `code` is its stable reason (`forbidden`, `last-owner`, …), `status` the HTTP status. */
export class OrganizationsClientError extends Error {
  readonly code: string
  readonly status: number
  constructor(code: string, message: string, status: number) {
    super(message)
    this.name = "OrganizationsClientError"
    this.code = code
    this.status = status
  }
}

/** The options of {@link organizationsClient}. */
export interface OrganizationsClientOptions {
  /** Where the auth routes are served. Default `"/api/auth"`. */
  basePath?: string
  /** The `fetch` to use (a test's, a server-rendering one). Default: the global `fetch`. */
  fetch?: typeof fetch
}

/** A cached answer of the client, for hooks: the value, or the error of the last load. */
export interface Snapshot<T> {
  data: T | undefined
  error: OrganizationsClientError | Error | undefined
  loading: boolean
}

/** The browser's organizations API. */
export interface OrganizationsClient {
  list(): Promise<{ organizations: OrganizationSummary[]; active: string | null }>
  create(input: CreateOrganizationInput): Promise<OrganizationDetails>
  get(id: string): Promise<OrganizationDetails>
  update(id: string, patch: UpdateOrganizationInput): Promise<OrganizationDetails>
  /** Deletes it; needs a recent sign-in (`StepUpRequired` otherwise). */
  remove(id: string): Promise<{ deleted: true }>
  members(id: string): Promise<MemberDetails[]>
  setRole(id: string, userId: string, role: string): Promise<{ userId: string; role: string }>
  removeMember(id: string, userId: string): Promise<{ removed: true }>
  leave(id: string): Promise<{ removed: true }>
  invitations(id: string): Promise<InvitationDetails[]>
  invite(id: string, input: { email: string; role?: string }): Promise<InvitationDetails>
  revokeInvitation(id: string, invitationId: string): Promise<{ revoked: true }>
  accept(invitationId: string, token: string): Promise<{ organization: OrganizationSummary }>
  /** Switches the session's active organization (`null`: none). */
  switchActive(id: string | null): Promise<{ active: OrganizationSummary | null }>
  /** The session's active organization (from the session answer), or `null`. */
  active(): Promise<OrganizationSummary | null>
  /**
   * A cached read for hooks: `key` names it, `load` fetches it. Loaded on first watch,
   * loaded again after any change this client makes.
   */
  watch<T>(key: string, load: () => Promise<T>): { subscribe(listener: () => void): () => void; snapshot(): Snapshot<T>; refresh(): Promise<void> }
}

interface Entry {
  snapshot: Snapshot<unknown>
  load: () => Promise<unknown>
  listeners: Set<() => void>
  running?: Promise<void>
}

/**
 * Creates the browser's organizations client. Each client has its own CSRF token and
 * cache, so two clients (two base paths) never mix answers.
 */
export function organizationsClient(options: OrganizationsClientOptions = {}): OrganizationsClient {
  const basePath = (options.basePath ?? "/api/auth").replace(/\/+$/, "")
  const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  let csrf: Promise<string> | undefined
  const entries = new Map<string, Entry>()

  async function csrfToken(fresh = false): Promise<string> {
    if (fresh || !csrf) {
      csrf = fetcher(`${basePath}/csrf`, { credentials: "same-origin", headers: { accept: "application/json" } })
        .then((r) => r.json() as Promise<{ csrfToken: string }>)
        .then((body) => body.csrfToken)
      csrf.catch(() => (csrf = undefined))
    }
    return csrf
  }

  async function call<T>(method: "GET" | "POST", path: string, body?: unknown, retried = false): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" }
    if (method === "POST") {
      headers["content-type"] = "application/json"
      headers["x-csrf-token"] = await csrfToken()
    }
    const response = await fetcher(`${basePath}/organizations${path ? `/${path}` : ""}`, {
      method,
      headers,
      credentials: "same-origin",
      ...(method === "POST" && { body: JSON.stringify(body ?? {}) }),
    })
    const answer = (await response.json().catch(() => ({}))) as { error?: string; message?: string }
    if (!response.ok) {
      // The CSRF cookie may have been replaced (a sign-in): fetch a new token once and retry.
      if (response.status === 403 && answer.error === "MissingCSRF" && !retried) {
        await csrfToken(true)
        return call(method, path, body, true)
      }
      throw new OrganizationsClientError(answer.error ?? "error", answer.message ?? `The request failed (${response.status})`, response.status)
    }
    return answer as T
  }

  /** After a change, every watched read loads again. */
  async function changed<T>(result: Promise<T>): Promise<T> {
    const value = await result
    for (const entry of entries.values()) if (entry.listeners.size) void run(entry)
    return value
  }

  function run(entry: Entry): Promise<void> {
    entry.snapshot = { ...entry.snapshot, loading: true }
    entry.listeners.forEach((l) => l())
    entry.running ??= entry
      .load()
      .then(
        (data) => (entry.snapshot = { data, error: undefined, loading: false }),
        (error: Error) => (entry.snapshot = { data: entry.snapshot.data, error, loading: false }),
      )
      .then(() => {
        entry.running = undefined
        entry.listeners.forEach((l) => l())
      })
    return entry.running
  }

  const path = (...parts: string[]) => parts.map(encodeURIComponent).join("/")

  return {
    list: () => call("GET", ""),
    create: (input) => changed(call<{ organization: OrganizationDetails }>("POST", "", input).then((a) => a.organization)),
    get: (id) => call<{ organization: OrganizationDetails }>("GET", path(id)).then((a) => a.organization),
    update: (id, patch) => changed(call<{ organization: OrganizationDetails }>("POST", path(id), patch).then((a) => a.organization)),
    remove: (id) => changed(call("POST", `${path(id)}/delete`)),
    members: (id) => call<{ members: MemberDetails[] }>("GET", `${path(id)}/members`).then((a) => a.members),
    setRole: (id, userId, role) => changed(call("POST", `${path(id)}/members/${path(userId)}/role`, { role })),
    removeMember: (id, userId) => changed(call("POST", `${path(id)}/members/${path(userId)}/remove`)),
    leave: (id) => changed(call("POST", `${path(id)}/leave`)),
    invitations: (id) => call<{ invitations: InvitationDetails[] }>("GET", `${path(id)}/invitations`).then((a) => a.invitations),
    invite: (id, input) => changed(call<{ invitation: InvitationDetails }>("POST", `${path(id)}/invitations`, input).then((a) => a.invitation)),
    revokeInvitation: (id, invitationId) => changed(call("POST", `${path(id)}/invitations/${path(invitationId)}/revoke`)),
    accept: (invitationId, token) => changed(call("POST", `invitations/${path(invitationId)}/accept`, { token })),
    switchActive: (id) => changed(call("POST", "active", { organizationId: id })),
    async active() {
      const response = await fetcher(`${basePath}/session`, { credentials: "same-origin", headers: { accept: "application/json" } })
      const session = (await response.json().catch(() => null)) as { organizations?: { active: OrganizationSummary | null } } | null
      return session?.organizations?.active ?? null
    },
    watch<T>(key: string, load: () => Promise<T>) {
      let entry = entries.get(key)
      if (!entry) entries.set(key, (entry = { snapshot: { data: undefined, error: undefined, loading: false }, load, listeners: new Set() }))
      const found = entry
      return {
        subscribe(listener) {
          found.listeners.add(listener)
          if (found.snapshot.data === undefined && !found.running) void run(found)
          return () => found.listeners.delete(listener)
        },
        snapshot: () => found.snapshot as Snapshot<T>,
        refresh: () => run(found),
      }
    },
  }
}
