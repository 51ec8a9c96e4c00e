"use client"
import { useEffect, useState } from "react"
import { signIn } from "@portcullis/next/react"

/** The same sign-in from the browser: signIn(…, { redirect: false }) reports errors in place. */
export function ClientSignIn({ redirectTo }: { redirectTo: string }) {
  const [message, setMessage] = useState<string>()
  // Marks the form interactive: before hydration a click would submit it natively.
  const [ready, setReady] = useState(false)
  useEffect(() => setReady(true), [])
  return (
    <section data-ready={ready}>
      <h2>From the browser</h2>
      <form
        className="stack"
        onSubmit={async (event) => {
          event.preventDefault()
          const form = new FormData(event.currentTarget)
          const result = await signIn("credentials", { username: form.get("username"), password: form.get("password"), redirectTo, redirect: false })
          if (result?.ok) window.location.assign(redirectTo)
          else setMessage(result?.error === "CredentialsSignin" ? "Wrong username or password." : "Sign-in failed.")
        }}
      >
        <label>
          Username
          <input name="username" id="client-username" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" id="client-password" type="password" autoComplete="current-password" required />
        </label>
        <button id="client-sign-in">Sign in (client)</button>
        {message && (
          <p id="client-error" role="alert">
            {message}
          </p>
        )}
      </form>
    </section>
  )
}
