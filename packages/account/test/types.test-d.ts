/**
 * The account center's types as an app sees them: the extension's id and server functions
 * inferred into a configuration's `extensions`, and the facet's shapes on `ExtensionTools`.
 */
import { expectTypeOf } from "vitest"
import type { ExtensionFunctions, ExtensionTools, AccountApi, AccountUser } from "@portcullis/core/extension"
import { account, type AccountServer, type AccountState } from "@portcullis/account"

const extension = account({ locate: (ip: string) => (ip.startsWith("10.") ? null : "Somewhere") })
expectTypeOf(extension.id).toEqualTypeOf<"account">()

type Functions = ExtensionFunctions<[typeof extension]>
expectTypeOf<Functions["account"]>().toEqualTypeOf<AccountServer>()
expectTypeOf<Awaited<ReturnType<AccountServer["state"]>>>().toEqualTypeOf<AccountState>()
expectTypeOf<AccountState["user"]>().toEqualTypeOf<AccountUser>()

expectTypeOf<ExtensionTools["account"]>().toEqualTypeOf<AccountApi>()
expectTypeOf<AccountApi["unlink"]>().parameters.toEqualTypeOf<[string]>()
// Nothing in the facet takes a user id: it acts on the request's own session.
expectTypeOf<Parameters<AccountApi["revokeSession"]>>().toEqualTypeOf<[id: string]>()

// @ts-expect-error locate must be a function
account({ locate: "geoip" })
// @ts-expect-error the option is a number of seconds
account({ emailChangeMaxAge: "1h" })
