import Link from "next/link"
import type { ReactNode } from "react"
import { SessionProvider } from "@portcullis/next/react"
import { auth, signOut } from "../auth"
import "./style.css"

export const metadata = { title: "Portcullis × Next.js" }

export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await auth()
  return (
    <html lang="en">
      <body>
        <header>
          <nav>
            <Link href="/">Home</Link>
            <Link href="/protected">Protected</Link>
          </nav>
          {session ? (
            <form
              action={async () => {
                "use server"
                await signOut({ redirectTo: "/" })
              }}
            >
              <span id="nav-user">{session.user?.name}</span>
              <button id="sign-out">Sign out</button>
            </form>
          ) : (
            <Link id="sign-in" href="/signin">
              Sign in
            </Link>
          )}
        </header>
        {/* The server's session: no fetch on load, and Server Actions that sign in, out or
            update re-render this layout, so client components follow them at once. */}
        <SessionProvider session={session}>
          <main>{children}</main>
        </SessionProvider>
      </body>
    </html>
  )
}
