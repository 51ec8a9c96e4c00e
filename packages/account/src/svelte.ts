/**
 * `@portcullis/account/svelte`: the account center for Svelte and SvelteKit — a store of the
 * account's state (the Svelte store contract: `subscribe(run)` calls `run` at once and on
 * every change, and returns the unsubscriber) with the actions that change it, and `t` for
 * the catalogs' sentences. Nothing of Svelte is imported: a store is a contract, so
 * `$account` works in any Svelte version. The built-in page (`<basePath>/account`) needs no
 * component at all; these are for an app's own settings page. Ready-made Svelte 5 components
 * over this store are `@portcullis/account/svelte/components` (`<AccountCenter/>`, one per
 * section).
 *
 * @example
 * ```svelte
 * <script lang="ts">
 *   import { accountStore } from "@portcullis/account/svelte"
 *   const account = accountStore({ basePath: "/auth", locale: "de" })
 * </script>
 * {#if $account.data}
 *   <h2>{account.t("sessions.heading")}</h2>
 *   {#each $account.data.sessions ?? [] as s}
 *     <p>{account.deviceName(s.userAgent)} <button on:click={() => account.run(() => account.client.revokeSession(s.id))}>{account.t("sessions.revoke")}</button></p>
 *   {/each}
 *   {#if $account.problem}<p role="alert">{$account.problem}</p>{/if}
 * {/if}
 * ```
 * @module
 */
import { AccountClientError, accountClient, type AccountClient, type AccountClientOptions, type AccountState } from "./client.js"
import { messages } from "./messages.js"
import { parseUserAgent } from "./user-agent.js"

export { accountClient, AccountClientError } from "./client.js"
export type { AccountClient, AccountClientOptions, AccountState } from "./client.js"

/** What the store holds. */
export interface AccountSnapshot {
  data: AccountState | undefined
  loading: boolean
  /** An action runs (`run`): the components take no second submission meanwhile. */
  busy: boolean
  notice: string | undefined
  problem: string | undefined
  /** With a `StepUpRequired` problem: where to confirm it's you. */
  reauthenticateUrl: string | undefined
}

/** The store, its client, and the helpers a template needs. */
export interface AccountStore {
  subscribe(run: (value: AccountSnapshot) => void): () => void
  client: AccountClient
  refresh(): Promise<void>
  /** Runs an action, then reloads; a refusal becomes `problem` (in the store's language). */
  run(action: () => Promise<unknown>, notice?: string): Promise<void>
  /** A sentence of the catalogs in the store's language. */
  t(key: string, values?: Record<string, string | number>): string
  /** "Firefox on Windows" from a User-Agent. */
  deviceName(userAgent: string | null): string
}

/** The options of {@link accountStore}. */
export interface AccountStoreOptions extends AccountClientOptions {
  client?: AccountClient
  /** A language of the catalogs (`en de fr es pt ja zh ar`); English for any other. */
  locale?: string
  /** A state to hold before the first load (server rendering); with it, nothing loads until `refresh()`. */
  initialState?: AccountState
  /** Whether the first subscriber loads the state. Default `true`; the components pass `false` on the server. */
  load?: boolean
}

/** An account store (`basePath` default `/auth`, SvelteKit's); loads on the first subscriber. */
export function accountStore(options: AccountStoreOptions = {}): AccountStore {
  const client = options.client ?? accountClient({ basePath: "/auth", ...options })
  const locale = options.locale ?? "en"
  const catalog: Record<string, string> = (messages as Record<string, Record<string, string>>)[locale] ?? (messages as Record<string, Record<string, string>>)[locale.split("-")[0]!] ?? messages.en
  const t = (key: string, values: Record<string, string | number> = {}) =>
    (catalog[key] ?? (messages.en as Record<string, string>)[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? `{${name}}`))
  let value: AccountSnapshot = { data: options.initialState, loading: false, busy: false, notice: undefined, problem: undefined, reauthenticateUrl: undefined }
  let running = 0
  const listeners = new Set<(value: AccountSnapshot) => void>()
  const set = (patch: Partial<AccountSnapshot>) => {
    value = { ...value, ...patch }
    for (const listener of listeners) listener(value)
  }
  const refresh = async () => {
    set({ loading: true })
    try {
      set({ data: await client.state(), loading: false })
    } catch (error) {
      set({ loading: false, problem: problemOf(error) })
    }
  }
  const problemOf = (error: unknown) => {
    const code = error instanceof AccountClientError ? error.code : "generic"
    if (code === "StepUpRequired") return t("stepUp.needed")
    const sentence = t(`problem.${code}`)
    return sentence === `problem.${code}` ? t("problem.generic") : sentence
  }
  return {
    subscribe(run) {
      listeners.add(run)
      run(value)
      if (listeners.size === 1 && options.load !== false && !value.data && !value.loading) void refresh()
      return () => void listeners.delete(run)
    },
    client,
    refresh,
    async run(action, notice) {
      running++
      set({ busy: true })
      try {
        await action()
        set({ notice: notice ? t(notice) : undefined, problem: undefined, reauthenticateUrl: undefined })
        await refresh()
      } catch (error) {
        set({ notice: undefined, problem: problemOf(error), reauthenticateUrl: error instanceof AccountClientError ? error.reauthenticateUrl : undefined })
      } finally {
        running--
        set({ busy: running > 0 })
      }
    },
    t,
    deviceName(userAgent) {
      const { browser, os } = parseUserAgent(userAgent)
      return browser && os ? t("sessions.device", { browser, os }) : (browser ?? os ?? t("sessions.unknown"))
    },
  }
}
