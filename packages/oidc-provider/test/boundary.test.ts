/**
 * The OpenID Provider (issue 34) is built on the public extension API only: nothing in `src/`
 * imports core but `@portcullis/core/extension` (types also from `@portcullis/core` and
 * `@portcullis/core/adapters`), and no path reaches out of the package into core's `lib/`.
 */
import { extensionBoundarySuite } from "../../core/test/extension-boundary.js"

extensionBoundarySuite("the OpenID Provider", new URL("../src/", import.meta.url), "tokens.ts")
