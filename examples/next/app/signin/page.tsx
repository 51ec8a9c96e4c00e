import { demoOidcEnabled } from "../../auth"
import { signInWithOidc, signInWithPassword } from "./actions"
import { ClientSignIn } from "./client-sign-in"

/** Only a path on this site is a place to return to; anything else lands on the home page. */
function safePath(value: string | undefined): string {
  if (!value) return "/"
  if (value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")) return value
  // An absolute URL (useSession({ required: true }) sends the page's href) keeps only its
  // path: wherever it pointed, the user stays on this site.
  try {
    const url = new URL(value)
    if (url.protocol === "http:" || url.protocol === "https:") return url.pathname + url.search + url.hash
  } catch {
    // Not a URL: fall through.
  }
  return "/"
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; error?: string }> }) {
  const { callbackUrl, error } = await searchParams
  const redirectTo = safePath(callbackUrl)
  return (
    <>
      <h1>Sign in</h1>
      {error && (
        <p id="error" role="alert">
          {error === "CredentialsSignin" ? "Wrong username or password." : "Sign-in failed. Please try again."}
        </p>
      )}
      <section>
        <h2>With a Server Action</h2>
        <form className="stack" action={signInWithPassword}>
          <input type="hidden" name="redirectTo" value={redirectTo} />
          <label>
            Username
            <input name="username" autoComplete="username" required />
          </label>
          <label>
            Password
            <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <button id="password-sign-in">Sign in</button>
        </form>
        <p>Demo account: demo / portcullis</p>
      </section>
      {demoOidcEnabled() && (
        <section>
          <form action={signInWithOidc}>
            <input type="hidden" name="redirectTo" value={redirectTo} />
            <button id="oidc-sign-in">Sign in with Demo OIDC</button>
          </form>
        </section>
      )}
      <ClientSignIn redirectTo={redirectTo} />
    </>
  )
}
