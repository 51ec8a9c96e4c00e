import { revalidatePath } from "next/cache"
import { auth, unstable_update } from "../../auth"
import { ClientSession, RenameForm } from "../client-session"

export default async function Protected() {
  // The proxy already sent signed-out visitors to /signin; this read is for display.
  const session = await auth()
  return (
    <>
      <h1>Protected page</h1>
      <section>
        <h2>Server Component</h2>
        <pre id="server-session">{JSON.stringify(session)}</pre>
      </section>
      <ClientSession />
      <section>
        <RenameForm />
        <form
          className="stack"
          action={async (form: FormData) => {
            "use server"
            await unstable_update({ user: { name: String(form.get("name") ?? "") } })
            revalidatePath("/protected")
          }}
        >
          <label>
            Display name (server action)
            <input id="server-name" name="name" required maxLength={60} />
          </label>
          <button id="server-rename">Rename on the server</button>
        </form>
      </section>
    </>
  )
}
