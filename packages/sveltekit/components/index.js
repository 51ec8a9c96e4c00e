// Svelte components ship as source: the app's Svelte compiler (vite-plugin-svelte) compiles
// them with the app's own Svelte version. Resolved through the "svelte" export condition.
export { default as SignIn } from "./SignIn.svelte"
export { default as SignOut } from "./SignOut.svelte"
