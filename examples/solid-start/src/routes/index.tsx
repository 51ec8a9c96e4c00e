import { createAsync, query } from "@solidjs/router"
import { getRequestEvent } from "solid-js/web"
import { createSignal, Show } from "solid-js"
import { signIn, signOut } from "@portcullis/solid-start/client"

const loadSession = query(async () => {
  "use server"
  const { getSession } = await import("@portcullis/solid-start")
  const { authOptions, oidcEnabled } = await import("~/auth")
  return { session: await getSession(getRequestEvent()!.request, authOptions), oidcEnabled }
}, "session")

export const route = { preload: () => loadSession() }

export default function Home() {
  const data = createAsync(() => loadSession())
  const [message, setMessage] = createSignal("")

  async function submit(event: SubmitEvent) {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const result = await signIn("credentials", { username: form.get("username"), password: form.get("password"), redirect: false })
    if (result?.error) setMessage(`Refused (${result.error})`)
    else window.location.href = "/"
  }

  return (
    <main style={{ "font-family": "system-ui, sans-serif", "max-width": "40rem", margin: "2rem auto" }}>
      <h1>Portcullis on SolidStart</h1>
      <Show when={data()}>
        {(d) => (
          <Show
            when={d().session}
            fallback={
              <>
                <p id="status">Not signed in.</p>
                <form id="credentials-form" onSubmit={submit}>
                  <label style={{ display: "block" }}>
                    Username <input name="username" autocomplete="username" required />
                  </label>
                  <label style={{ display: "block" }}>
                    Password <input name="password" type="password" autocomplete="current-password" required />
                  </label>
                  <button type="submit">Sign in with password</button>
                </form>
                <p id="message">{message()}</p>
                <p>
                  Try <code>demo</code> / <code>portcullis</code>.
                </p>
                <Show when={d().oidcEnabled} fallback={<p>Start with npm start to get the local Demo OIDC provider too.</p>}>
                  <button id="oidc" onClick={() => signIn("demo-oidc", { redirectTo: "/" })}>
                    Sign in with Demo OIDC
                  </button>
                </Show>
              </>
            }
          >
            {(session) => (
              <>
                <p id="status">
                  Signed in as <strong>{session().user?.name}</strong> ({session().user?.email})
                </p>
                <pre id="session">{JSON.stringify(session(), null, 2)}</pre>
                <button id="sign-out" onClick={() => signOut({ redirectTo: "/" })}>
                  Sign out
                </button>
              </>
            )}
          </Show>
        )}
      </Show>
      <p>
        <a href="/api/auth/signin" rel="external">Built-in sign-in page</a>
      </p>
    </main>
  )
}
