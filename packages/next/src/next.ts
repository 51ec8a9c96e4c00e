/**
 * `next-auth/next` held next-auth v4's `getServerSession` and handler; next-auth v5 keeps the
 * import path only to fail loudly, and so does this one: use `auth()` from `NextAuth(config)`.
 *
 * @example
 * ```ts
 * import { auth } from "@/auth"
 * const session = await auth()
 * ```
 * @module
 */
import { retiredModule } from "./lib/retired.js"

throw retiredModule("@portcullis/next/next", "auth() from NextAuth(config), in Server Components, route handlers and the Pages Router alike")
