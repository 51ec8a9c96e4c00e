// The state every component shares: the store of `@portcullis/account/svelte` (the one
// `<AccountCenter/>` hands its sections, or a section's own) and the run of an action that
// keeps keyboard focus somewhere sensible when the form that had it goes away.
import { tick } from "svelte"
import { get } from "svelte/store"
import { accountStore } from "@portcullis/account/svelte"

/**
 * A section's store: the one it was given, or its own over `client`/`basePath`.
 * @param {{ account?: import("@portcullis/account/svelte").AccountStore, client?: import("@portcullis/account/client").AccountClient, basePath?: string, locale?: string, initialState?: import("@portcullis/account/client").AccountState }} props
 * @returns {import("@portcullis/account/svelte").AccountStore}
 */
export function storeOf(props) {
  if (props.account) return props.account
  return accountStore({
    ...(props.client && { client: props.client }),
    ...(props.basePath && { basePath: props.basePath }),
    ...(props.locale && { locale: props.locale }),
    ...(props.initialState && { initialState: props.initialState }),
    // On the server there is no session cookie to send and no page to update: the first
    // state comes from `initialState`, or from the browser's load after hydration.
    load: typeof window !== "undefined",
  })
}

/**
 * Runs `action` through the store, then — when the element that had focus is gone (a form
 * replaced by the next step, a removed passkey's button) — moves focus to the section's
 * heading, so a keyboard or screen-reader user is not thrown back to the top of the page.
 * While an action runs, another is not sent: a double click or an impatient second submit
 * must not post twice (two revocations, two two-factor confirmations with one code).
 * @param {import("@portcullis/account/svelte").AccountStore} account
 * @param {string} section the section's id
 * @param {() => Promise<unknown>} action
 * @param {string} [notice] a catalog key for the notice on success
 */
export async function act(account, section, action, notice) {
  if (get(account).busy) return
  await account.run(action, notice)
  await tick()
  if (typeof document === "undefined") return
  const active = document.activeElement
  if (!active || active === document.body || !active.isConnected) document.getElementById(`${section}-heading`)?.focus()
}

/**
 * A form's fields as strings, after which the form is emptied (a password never lingers).
 * @param {SubmitEvent} event
 * @returns {Record<string, string>}
 */
export function fieldsOf(event) {
  event.preventDefault()
  const form = /** @type {HTMLFormElement} */ (event.currentTarget)
  const fields = Object.fromEntries([...new FormData(form)].map(([name, value]) => [name, String(value)]))
  form.reset()
  return fields
}
