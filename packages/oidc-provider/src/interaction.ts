/**
 * An authorization request parked in the store while the user signs in, re-authenticates or
 * consents: checked once at `authorize`, then resumed by id. Taken (single use) when the code
 * is issued or the user denies.
 * @module
 */
import type { Locals } from "./locals.js"

export interface Interaction {
  clientId: string
  redirectUri: string
  scope: string
  resources: string[]
  state?: string
  nonce?: string
  codeChallenge?: string
  prompt: string[]
  maxAge?: number
  loginHint?: string
  /** When `authorize` was asked (ms): a re-authentication it asks for must come after. */
  requestedAt: number
  /** The user the consent page was shown to: only they may answer it. */
  userId?: string
}

export async function saveInteraction(locals: Locals, id: string, interaction: Interaction): Promise<void> {
  await locals.store.putInteraction(`authz:${id}`, JSON.stringify(interaction), new Date(interaction.requestedAt + locals.options.ttl.interaction * 1000))
}

export async function readInteraction(locals: Locals, id: string): Promise<Interaction | null> {
  if (!/^[A-Za-z0-9_-]{20,64}$/.test(id)) return null
  const raw = await locals.store.getInteraction(`authz:${id}`)
  return raw ? (JSON.parse(raw) as Interaction) : null
}

/** Takes the interaction (once): `false` when another request took it first. */
export async function takeInteraction(locals: Locals, id: string): Promise<boolean> {
  return (await locals.store.takeInteraction(`authz:${id}`)) !== null
}
