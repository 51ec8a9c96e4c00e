import Link from "next/link"
import { auth } from "../auth"
import { ClientSession } from "./client-session"

export default async function Home() {
  const session = await auth()
  return (
    <>
      <h1>Portcullis × Next.js</h1>
      <p>A public page. The protected page is guarded by proxy.ts.</p>
      <section>
        <h2>Server Component</h2>
        <p id="server-status">{session ? `Signed in as ${session.user?.name}` : "not signed in"}</p>
      </section>
      <ClientSession />
      <p>
        <Link href="/protected">Go to the protected page</Link>
      </p>
    </>
  )
}
