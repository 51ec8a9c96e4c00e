// `@portcullis/account/svelte/components`, resolved through the `svelte` export condition:
// the `.svelte` sources, compiled by the app's own Svelte (5 or later).
export { default as AccountCenter } from "./AccountCenter.svelte"
export { default as ProfileSection } from "./ProfileSection.svelte"
export { default as EmailSection } from "./EmailSection.svelte"
export { default as LinkedAccountsSection } from "./LinkedAccountsSection.svelte"
export { default as PasskeysSection } from "./PasskeysSection.svelte"
export { default as PasswordSection } from "./PasswordSection.svelte"
export { default as TwoFactorSection } from "./TwoFactorSection.svelte"
export { default as SessionsSection } from "./SessionsSection.svelte"
export { default as DeleteSection } from "./DeleteSection.svelte"
export { default as AccountNotices } from "./AccountNotices.svelte"
