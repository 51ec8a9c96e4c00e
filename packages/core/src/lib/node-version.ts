/**
 * The Node version check. The packages carry no `engines` field — an install on an older
 * Node (a CI image, a monorepo whose scripts run a newer one, as ours do) should not warn —
 * so the version is checked where it matters: when a configuration is first used on Node.
 * Node ≥ 22.12 is what we test and what `require()` of our ES modules needs; older Node
 * lacks APIs the code relies on and would fail later with a less helpful message.
 * Bun and Deno also report a `versions.node` (their compatibility level) and are skipped.
 */
export const MIN_NODE = { major: 22, minor: 12 } as const

type Versions = { node?: string; bun?: string; deno?: string } | undefined

/** Why this runtime is too old a Node, or undefined when it is not Node or is new enough. */
export function unsupportedNode(versions: Versions = (globalThis as { process?: { versions?: Versions } }).process?.versions): string | undefined {
  if (!versions?.node || versions.bun || versions.deno) return undefined
  const [major = 0, minor = 0] = versions.node.split(".").map(Number)
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return undefined
  return `Portcullis needs Node ≥ ${MIN_NODE.major}.${MIN_NODE.minor} (24 LTS recommended); this is Node ${versions.node}. Upgrade Node.`
}

/** Throws the reason of {@link unsupportedNode}: before a configuration is used, not deep inside a request. */
export function assertSupportedNode(versions?: Versions): void {
  const problem = unsupportedNode(versions)
  if (problem) throw new Error(problem)
}
