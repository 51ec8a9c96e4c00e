// We import "next/server", "next/headers" and "next/navigation" bare, as Next's bundlers alias
// exactly those names (".js" would pull the client router into route handlers); NodeNext
// resolution only finds them with ".js", so these point the bare names at the same types.
declare module "next/server" {
  export * from "next/server.js"
}
declare module "next/headers" {
  export * from "next/headers.js"
}
declare module "next/navigation" {
  export * from "next/navigation.js"
}
