/**
 * `@portcullis/account/svelte/components`: the account center as Svelte 5 components —
 * `<AccountCenter/>` with every section, or each section on its own inside an app's settings
 * page — over the store of `@portcullis/account/svelte`. Sentences come from the extension's
 * catalogs (`locale`); themed with CSS variables (`--portcullis-account-accent`, …, listed in
 * docs/account.md). The `.svelte` sources ship in the package and resolve through the `svelte`
 * export condition (Vite with `@sveltejs/vite-plugin-svelte`, SvelteKit).
 *
 * @example
 * ```svelte
 * <script lang="ts">
 *   import { AccountCenter } from "@portcullis/account/svelte/components"
 * </script>
 *
 * <AccountCenter basePath="/auth" locale="de" ondeleted={() => (location.href = "/")} />
 * ```
 * @module
 */
import type { Component } from "svelte"
import type { AccountClient, AccountState } from "@portcullis/account/client"
import type { AccountStore } from "@portcullis/account/svelte"

/** What every component takes: the client (or where the auth routes are) and the language. */
export interface AccountProps {
  client?: AccountClient
  /** Where the auth routes are served (default `/auth`, SvelteKit's), when no `client` is given. */
  basePath?: string
  /** A language of the catalogs (`en de fr es pt ja zh ar`); English for any other. */
  locale?: string
  /** A state to show before the first load (server rendering); with it, nothing loads until an action. */
  initialState?: AccountState
}

/** A section's props: those of {@link AccountProps}, or the store `<AccountCenter/>` shares. */
export interface SectionProps extends AccountProps {
  /** A store to share with other sections; without it the section has its own and shows its own notices. */
  account?: AccountStore
}

/** Every section, sharing one store; the notice and problem of the last action above them. */
export declare const AccountCenter: Component<AccountProps & { ondeleted?: () => void }>
export declare const ProfileSection: Component<SectionProps>
export declare const EmailSection: Component<SectionProps>
export declare const LinkedAccountsSection: Component<SectionProps>
export declare const PasskeysSection: Component<SectionProps>
export declare const PasswordSection: Component<SectionProps>
/** Set-up with the QR code and the key, the backup codes shown once, replacing them, turning it off. */
export declare const TwoFactorSection: Component<SectionProps>
export declare const SessionsSection: Component<SectionProps>
export declare const DeleteSection: Component<SectionProps & { ondeleted?: () => void }>
/**
 * The notice and the problem of a shared store's last action (live regions, with "Confirm it's
 * you" for a step-up): `<AccountCenter/>` and a section with its own store show it already;
 * place it yourself when sections share a store of yours.
 */
export declare const AccountNotices: Component<{ account: AccountStore }>
