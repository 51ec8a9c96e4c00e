// Our code imports "next/server", "next/headers" and "next/navigation" without an extension,
// because Next's bundlers alias exactly those names (a route handler gets the server-only
// build of next/navigation; "next/navigation.js" would pull in the client router and break
// the build). Under NodeNext resolution TypeScript only finds them with ".js"; these
// declarations point the bare names at the same types.
declare module "next/server" {
  export * from "next/server.js"
}
declare module "next/headers" {
  export * from "next/headers.js"
}
declare module "next/navigation" {
  export * from "next/navigation.js"
}
