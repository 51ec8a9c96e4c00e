// Next 16's proxy (middleware.ts on Next 15: `export { auth as middleware } from "./auth"`).
// auth() as the proxy runs callbacks.authorized for every matched request and forwards the
// refreshed session cookie, which Server Components cannot set themselves.
export { auth as proxy } from "./auth"

export const config = {
  // Everything but Next's static files.
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
}
