import { RequiredSession } from "./required-session"

/**
 * A page that needs a session, guarded only in the browser: `useSession({ required: true })`
 * (the proxy lets it through). `?on=callback` passes `onUnauthenticated` instead of letting
 * the hook send a signed-out visitor to sign in.
 */
export default async function Required({ searchParams }: { searchParams: Promise<{ on?: string }> }) {
  const { on } = await searchParams
  return (
    <>
      <h1>Session required</h1>
      <RequiredSession withCallback={on === "callback"} />
    </>
  )
}
