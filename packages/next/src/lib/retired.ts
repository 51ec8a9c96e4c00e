/**
 * The error an import of a next-auth v4 module throws (next-auth v5 throws a `ReferenceError`
 * there too): what to use instead, so the first run of an unmigrated app says what to change.
 */
export function retiredModule(path: string, instead: string): ReferenceError {
  return new ReferenceError(`"${path}" is the place of a next-auth v4 API that v5 (and Portcullis) replaced. Use ${instead}. See docs/next.md.`)
}
