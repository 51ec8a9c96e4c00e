"use server"
import { redirect } from "next/navigation"
import { AuthError } from "@portcullis/next"
import { signIn } from "../../auth"

/** Password sign-in as a Server Action: a refusal comes back as an AuthError to handle here. */
export async function signInWithPassword(form: FormData) {
  try {
    // Reads username, password and redirectTo from the form; redirects on success.
    await signIn("credentials", form)
  } catch (error) {
    if (error instanceof AuthError) {
      const params = new URLSearchParams({ error: error.type, callbackUrl: String(form.get("redirectTo") ?? "/") })
      redirect(`/signin?${params}`)
    }
    // Next's redirect travels as a thrown error: let it through.
    throw error
  }
}

/** OpenID sign-in: redirects to the provider, which comes back to /api/auth/callback/demo-oidc. */
export async function signInWithOidc(form: FormData) {
  await signIn("demo-oidc", { redirectTo: String(form.get("redirectTo") ?? "/") })
}
