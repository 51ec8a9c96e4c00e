/**
 * A kind whose code comes with its provider function instead of from the registry: the
 * function (`Passkey()`, `WebAuthn()`) puts a loader for its kind's module on the provider
 * object under {@link kindModule}, and the registry loads that. A configuration without such
 * a provider then has no path, not even an `import()`, to that code, so an app's build does
 * not ship it (WebAuthn brings @simplewebauthn/server and its ASN.1/X.509 stack, about
 * 440 KiB minified).
 * @module
 */

/** The key of the loader; `Symbol.for`, so two copies of core in one app still agree. */
export const kindModule: unique symbol = Symbol.for("portcullis.kindModule")

/** Loads a kind's module (what the registry's own loaders return). */
export type KindModuleLoader = () => Promise<unknown>

/** `provider`, carrying the loader of its kind's module (a symbol key, which config merging keeps). */
export function withKindModule<P extends object>(provider: P, load: KindModuleLoader): P {
  return Object.assign(provider, { [kindModule]: load })
}

/** The loader a provider function put on `provider`, if any. */
export function providedKindModule(provider: object): KindModuleLoader | undefined {
  const load = (provider as { [kindModule]?: unknown })[kindModule]
  return typeof load === "function" ? (load as KindModuleLoader) : undefined
}
