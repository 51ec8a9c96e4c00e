/**
 * `next-auth/middleware` was next-auth v4's `withAuth`. next-auth v5 keeps the import path
 * only to fail loudly, and so does this one: export `auth` as the proxy instead.
 *
 * @example
 * ```ts
 * // proxy.ts (middleware.ts before Next.js 16)
 * export { auth as proxy } from "@/auth"
 * ```
 * @module
 */
import { retiredModule } from "./lib/retired.js"

throw retiredModule("@portcullis/next/middleware", 'export { auth as proxy } from "@/auth" (or as middleware)')
