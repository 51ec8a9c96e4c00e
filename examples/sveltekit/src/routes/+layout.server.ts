import type { LayoutServerLoad } from "./$types"
import { oidcEnabled } from "../lib/auth"

export const load: LayoutServerLoad = async (event) => ({
  session: await event.locals.auth(),
  // Handed to <SignIn>/<SignOut>: their form actions have core check it (double submit).
  csrfToken: await event.locals.csrfToken(),
  oidcEnabled,
})
