import type { LayoutServerLoad } from "./$types"
import { oidcEnabled } from "$lib/auth"

export const load: LayoutServerLoad = async (event) => ({ session: await event.locals.auth(), oidcEnabled })
