import { AuthError, InvalidConfig } from "../../errors.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { ConfiguredKinds, KindCheckInput, KindConfigs, KindName, KindSetup } from "./shapes.js"
import { providedKindModule, type KindModuleLoader } from "./provided.js"

export type { KindCheckInput, KindName, KindSetup } from "./shapes.js"

/**
 * Which provider kinds a configuration uses, loaded on demand. This module is what config
 * resolution sees of the kinds: it names their modules only through `import()`, so
 * resolving a configuration pulls in no kind's code (nor its request-handling types).
 * @module
 */

/**
 * Each kind's module, imported when a configuration first has a provider of it — so an app
 * with only credentials never loads (and a bundler that splits chunks never ships in its
 * entry) the OAuth, WebAuthn or email code. The order is the order the kinds' configuration
 * checks run in, which decides which problem is reported first.
 */
const loaders = {
  credentials: async () => (await import("./credentials.js")).credentialsKind,
  email: async () => (await import("./email.js")).emailKind,
  oauth: async () => (await import("./oauth.js")).oauthKind,
  // Brought by the WebAuthn and Passkey provider functions (lib/kinds/provided.ts): named
  // here only for the order of the checks and the type.
  webauthn: undefined as unknown as () => Promise<(typeof import("./webauthn.js"))["webauthnKind"]>,
  // Brought by the Password provider function, like WebAuthn (it carries Argon2 and zxcvbn).
  password: undefined as unknown as () => Promise<(typeof import("./password.js"))["passwordKind"]>,
} satisfies { readonly [K in KindName]: () => Promise<KindSetup<KindConfigs[K]>> }

/** The provider functions that bring the kinds the registry has no loader for. */
const PROVIDER_FUNCTIONS = {
  webauthn: "WebAuthn() or Passkey() from @portcullis/core/providers/webauthn or /passkey",
  password: "Password() from @portcullis/core/providers/password",
}

/** The loaded module of each kind. */
export type LoadedKind<K extends KindName> = Awaited<ReturnType<(typeof loaders)[K]>>
type Loaded = { [K in KindName]?: Promise<LoadedKind<K>> }

/** The kind a provider `type` belongs to; `undefined` for a type no kind handles. */
export function kindName(type: unknown): KindName | undefined {
  switch (type) {
    case "credentials":
    case "email":
    case "webauthn":
    case "password":
      return type
    case "oauth":
    case "oidc":
      return "oauth"
    default:
      return undefined
  }
}

/**
 * The provider kinds one configuration uses (`ResolvedConfig.kinds`): each configured
 * kind's module is imported once, when the configuration is resolved, and its
 * configuration check runs as soon as it has loaded. {@link checked} settles once with the
 * first problem, which the runtime awaits before answering any request — so a broken
 * provider is still a configuration error on every request, as in Auth.js, however the
 * kind's code arrives.
 *
 * @example
 * const kinds = new ProviderKinds(providers, { env, redirectProxyUrl: undefined, logger })
 * const problem = await kinds.checked // undefined when every provider checks out
 * const oauth = await kinds.load("oauth") // the OAuth kind's module
 */
export class ProviderKinds implements ConfiguredKinds {
  readonly #loaded: Loaded = {}
  /** Loaders that came with the providers (the first provider of a kind that has one). */
  readonly #provided: { [K in KindName]?: KindModuleLoader } = {}
  /** The first problem the kinds' configuration checks found (or that loading a kind hit), else `undefined`. */
  readonly checked: Promise<AuthError | undefined>

  constructor(providers: readonly ProviderConfig[], input: KindCheckInput) {
    for (const provider of providers) {
      const name = kindName(provider.type)
      if (name) this.#provided[name] ??= providedKindModule(provider)
    }
    for (const provider of providers) {
      const name = kindName(provider.type)
      if (name) this.load(name)
    }
    this.checked = this.#check(providers, input)
  }

  /** The module of kind `name`, imported once per configuration (and by ESM once per process). */
  load<K extends KindName>(name: K): Promise<LoadedKind<K>> {
    const loaded = this.#loaded as { [N in K]?: Promise<LoadedKind<N>> }
    let module = loaded[name]
    if (!module) {
      const load = this.#provided[name] ?? loaders[name]
      module = loaded[name] = (
        load
          ? load()
          : Promise.reject(
              new InvalidConfig(`A "${name}" provider must be made by its provider function (${PROVIDER_FUNCTIONS[name as "webauthn" | "password"] ?? name}), which brings the ${name} code`),
            )
      ) as Promise<LoadedKind<K>>
      // A failed import is reported through `checked`; until something awaits it, it must
      // not count as an unhandled rejection (which would end a Node process).
      module.catch(() => undefined)
    }
    return module
  }

  async #check(providers: readonly ProviderConfig[], input: KindCheckInput): Promise<AuthError | undefined> {
    try {
      for (const name of Object.keys(loaders) as KindName[]) {
        if (!this.#loaded[name]) continue
        const kind = (await this.load(name)) as KindSetup<ProviderConfig>
        const own = providers.filter((p) => kindName(p.type) === name)
        const problem = kind.check?.(own, input)
        if (problem) return problem
      }
      return undefined
    } catch (e) {
      return e instanceof AuthError ? e : new InvalidConfig("A provider kind could not be loaded or checked", e as Error)
    }
  }

  /** The inline scripts the built-in sign-in page needs for the configured kinds' forms. */
  async pageScripts(providers: readonly { type: string }[]): Promise<string[]> {
    const names = new Set(providers.map((p) => kindName(p.type)).filter((n) => n !== undefined))
    const scripts: string[] = []
    for (const name of Object.keys(loaders) as KindName[]) {
      if (names.has(name)) scripts.push(...((await this.load(name)).pageScripts ?? []))
    }
    return scripts
  }
}
