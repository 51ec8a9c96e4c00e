/**
 * The built-in pages: sign in, sign out, error and "check your email". Each renderer
 * returns a complete HTML document built from escaped templates; no framework, no
 * runtime dependencies.
 * @module
 */
export type { SignInPageOptions } from "./types.js"
export { renderSignOut, type SignOutPageOptions } from "./signout.js"
export { renderError, type ErrorPageOptions } from "./error.js"
export { renderVerifyRequest, type VerifyRequestPageOptions } from "./verify-request.js"
export { signinErrorMessages, errorPageMessages, type SigninErrorCode, type ErrorPageCode } from "./messages.js"
export type { PageBase, PageProvider } from "./types.js"
