/**
 * The token module of `@portcullis/core`, under the Next.js package's name, as
 * `next-auth/jwt` is: `getToken`, `encode`, `decode` and the `JWT` type.
 *
 * @example
 * ```ts
 * import { getToken } from "@portcullis/next/jwt"
 * const token = await getToken({ req: request, secret: process.env.AUTH_SECRET })
 * ```
 * @module
 */
export * from "@portcullis/core/jwt"
