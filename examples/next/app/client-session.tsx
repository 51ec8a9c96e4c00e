"use client"
import { useState } from "react"
import { useSession } from "@portcullis/next/react"

/** The session as the browser sees it, through SessionProvider's fetch of /api/auth/session. */
export function ClientSession() {
  const { data, status } = useSession()
  return (
    <section>
      <h2>Client Component</h2>
      <p>
        Status: <span id="client-status">{status}</span>
      </p>
      <pre id="client-session">{status === "loading" ? "" : JSON.stringify(data)}</pre>
    </section>
  )
}

/** Renames the user with useSession().update(): the jwt callback takes `user.name` from it. */
export function RenameForm() {
  const { update } = useSession()
  const [name, setName] = useState("")
  const [saved, setSaved] = useState<string>()
  return (
    <form
      className="stack"
      onSubmit={async (event) => {
        event.preventDefault()
        const session = await update({ user: { name } })
        setSaved(session?.user?.name ?? undefined)
      }}
    >
      <label>
        Display name (client update)
        <input id="client-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={60} />
      </label>
      <button id="client-rename">Rename</button>
      {saved && <p id="client-saved">Saved as {saved}</p>}
    </form>
  )
}
