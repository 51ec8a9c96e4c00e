"use client"
import { useCallback, useEffect, useState } from "react"
import { useSession } from "@portcullis/next/react"

/**
 * Shows what `useSession({ required: true })` reports: the status now, every status it has
 * reported (a signed-out visitor must never see "unauthenticated"), and how often
 * `onUnauthenticated` ran.
 */
export function RequiredSession({ withCallback }: { withCallback: boolean }) {
  const [calls, setCalls] = useState(0)
  // Stable, so the hook's effect calls it once rather than after every render.
  const onUnauthenticated = useCallback(() => setCalls((n) => n + 1), [])
  const { data, status } = useSession({ required: true, ...(withCallback && { onUnauthenticated }) })
  const [seen, setSeen] = useState<string[]>([])
  useEffect(() => setSeen((statuses) => [...statuses, status]), [status])
  return (
    <section data-hydrated={seen.length > 0}>
      <p>
        Status: <span id="required-status">{status}</span>
      </p>
      <p>
        Statuses seen: <span id="required-seen">{seen.join(" ")}</span>
      </p>
      <p>
        onUnauthenticated calls: <span id="required-calls">{calls}</span>
      </p>
      <p>
        User: <span id="required-user">{data?.user?.name ?? ""}</span>
      </p>
    </section>
  )
}
