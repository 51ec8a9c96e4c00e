import { auth } from "../../../auth"

// A route handler wrapped by auth(): `authorized` ran first (a signed-out caller got its
// JSON 401), and the session is on req.auth.
export const GET = auth((req) => Response.json({ name: req.auth?.user?.name ?? null, email: req.auth?.user?.email ?? null }))
