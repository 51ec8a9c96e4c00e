/**
 * The account center's types as an app sees them: the extension's id and server functions
 * inferred into a configuration's `extensions`, and the facet's shapes on `ExtensionTools`.
 */
import { expectTypeOf } from "vitest"
import { defineExtension, html, type ExtensionFunctions, type ExtensionTools, type ExtensionRequest, type ExtensionAccountSectionEntry, type AccountApi, type AccountUser } from "@portcullis/core/extension"
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

// Another extension's section of the account page: its own locals typed, `html` for the body.
defineExtension({
  id: "grants",
  setup: () => ({ apps: ["cli"] }),
  accountSection: ({ locals, t }) => {
    expectTypeOf(locals.apps).toEqualTypeOf<string[]>()
    return { heading: t("heading"), body: html`<p>${locals.apps.length}</p>` }
  },
})
defineExtension({
  id: "stringy",
  // @ts-expect-error the body is html`…`, never a string (it would reach the page unescaped)
  accountSection: () => ({ heading: "Mine", body: "<p>raw</p>" }),
})
expectTypeOf<Awaited<ReturnType<ExtensionRequest["accountSections"]>>>().toEqualTypeOf<ExtensionAccountSectionEntry[]>()

// @ts-expect-error locate must be a function
account({ locate: "geoip" })
// @ts-expect-error the option is a number of seconds
account({ emailChangeMaxAge: "1h" })
