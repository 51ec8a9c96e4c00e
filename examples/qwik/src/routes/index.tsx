import { component$ } from "@builder.io/qwik"
import { Form, routeLoader$ } from "@builder.io/qwik-city"
import { useSession, useSignIn, useSignOut } from "./plugin@auth"

export const useOidcEnabled = routeLoader$(() => Boolean(process.env.DEMO_OIDC_ISSUER))

export default component$(() => {
  const session = useSession()
  const signIn = useSignIn()
  const signOut = useSignOut()
  const oidcEnabled = useOidcEnabled()

  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: "40rem", margin: "2rem auto" }}>
      <h1>Portcullis on Qwik City</h1>
      {session.value ? (
        <>
          <p id="status">
            Signed in as <strong>{session.value.user?.name}</strong> ({session.value.user?.email})
          </p>
          <pre id="session">{JSON.stringify(session.value, null, 2)}</pre>
          <Form action={signOut} reloadDocument>
            <input type="hidden" name="redirectTo" value="/" />
            <button type="submit">Sign out</button>
          </Form>
        </>
      ) : (
        <>
          <p id="status">Not signed in.</p>
          {/* reloadDocument: a plain form post, so the redirects (to a provider, too) are followed by the browser. */}
          <Form action={signIn} reloadDocument id="credentials-form">
            <input type="hidden" name="providerId" value="credentials" />
            <input type="hidden" name="options.redirectTo" value="/" />
            <label style={{ display: "block" }}>
              Username <input name="options.username" autoComplete="username" required />
            </label>
            <label style={{ display: "block" }}>
              Password <input name="options.password" type="password" autoComplete="current-password" required />
            </label>
            <button type="submit">Sign in with password</button>
          </Form>
          <p>
            Try <code>demo</code> / <code>portcullis</code>.
          </p>
          {oidcEnabled.value ? (
            <Form action={signIn} reloadDocument id="oidc-form">
              <input type="hidden" name="providerId" value="demo-oidc" />
              <input type="hidden" name="redirectTo" value="/" />
              <button type="submit">Sign in with Demo OIDC</button>
            </Form>
          ) : (
            <p>Start with npm start to get the local Demo OIDC provider too.</p>
          )}
        </>
      )}
      <p>
        <a href="/auth/signin">Built-in sign-in page</a>
      </p>
    </main>
  )
})
