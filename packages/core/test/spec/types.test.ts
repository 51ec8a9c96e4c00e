/**
 * The shapes of spec §2 (and the semver type of §9.6), held at compile time. `expectTypeOf`
 * checks nothing when vitest runs a file — only the TypeScript checker sees a mismatch — so
 * the last test compiles this very file with the repository's compiler options and fails on
 * any diagnostic: a field renamed, made required, or widened breaks it.
 */
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, expectTypeOf, it } from "vitest"
import type {
  Account,
  AuthConfig,
  Authenticator,
  CallbacksOptions,
  CookieOption,
  DefaultSession,
  EventCallbacks,
  InternalResponse,
  JWTCallbackParams,
  LoggerInstance,
  PagesOptions,
  PartialCookiesOptions,
  Profile,
  ProviderType,
  PublicProvider,
  SemverString,
  Session,
  SessionOptions,
  SignInCallbackParams,
  Theme,
  TokenSet,
  User,
  WarningCode,
} from "@portcullis/core"
import type { AdapterAccount, AdapterAuthenticator, AdapterSession, AdapterUser, VerificationToken } from "@portcullis/core/adapters"
import type { JWT, JWTDecodeParams, JWTEncodeParams, JWTOptions } from "@portcullis/core/jwt"

describe("§2.1–2.3 session, user and adapter user", () => {
  it("Session is { expires: string; user?: User } and DefaultSession is the same shape", () => {
    expectTypeOf<Session>().toEqualTypeOf<{ expires: string; user?: User }>()
    expectTypeOf<DefaultSession>().toEqualTypeOf<Session>()
  })

  it("User has optional id and nullable optional name, email, image", () => {
    expectTypeOf<User>().toEqualTypeOf<{ id?: string; name?: string | null; email?: string | null; image?: string | null }>()
  })

  it("AdapterUser requires id and email and has emailVerified: Date | null", () => {
    expectTypeOf<AdapterUser>().toEqualTypeOf<{ id: string; email: string; emailVerified: Date | null; name?: string | null; image?: string | null }>()
  })
})

describe("§2.4 profile", () => {
  it("has the OIDC claims as optional nullable fields and maps any other claim to unknown", () => {
    expectTypeOf<Profile["birthdate"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["email"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["family_name"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["gender"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["given_name"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["id"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["locale"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["middle_name"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["name"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["nickname"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["phone_number"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["preferred_username"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["profile"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["sub"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["website"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["zoneinfo"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Profile["email_verified"]>().toEqualTypeOf<boolean | null | undefined>()
    expectTypeOf<Profile["picture"]>().toEqualTypeOf<unknown>()
    expectTypeOf<Profile["updated_at"]>().toEqualTypeOf<string | number | Date | null | undefined>()
    type Address = NonNullable<Profile["address"]>
    expectTypeOf<keyof Address>().toEqualTypeOf<"country" | "formatted" | "locality" | "postal_code" | "region" | "street_address">()
    expectTypeOf<Address["postal_code"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<null>().toExtend<Profile["address"]>()
    expectTypeOf<Profile["x-custom-claim"]>().toEqualTypeOf<unknown>()
    // Every field is optional: an empty object is a profile.
    expectTypeOf<{}>().toExtend<Profile>()
  })
})

describe("§2.5–2.6 account and token set", () => {
  it("Account extends the token set with provider, providerAccountId, type and optional userId", () => {
    expectTypeOf<Account>().toExtend<TokenSet>()
    expectTypeOf<Account["provider"]>().toEqualTypeOf<string>()
    expectTypeOf<Account["providerAccountId"]>().toEqualTypeOf<string>()
    expectTypeOf<Account["type"]>().toEqualTypeOf<ProviderType>()
    expectTypeOf<"oauth" | "oidc" | "email" | "credentials" | "webauthn">().toExtend<ProviderType>()
    expectTypeOf<Account["userId"]>().toEqualTypeOf<string | undefined>()
  })

  it("the token set's fields: lowercase token_type, expires_at in seconds, authorization_details an array", () => {
    expectTypeOf<TokenSet["access_token"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<TokenSet["refresh_token"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<TokenSet["id_token"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<TokenSet["scope"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<TokenSet["token_type"]>().toEqualTypeOf<Lowercase<string> | undefined>()
    expectTypeOf<TokenSet["expires_in"]>().toEqualTypeOf<number | undefined>()
    expectTypeOf<TokenSet["expires_at"]>().toEqualTypeOf<number | undefined>()
    expectTypeOf<NonNullable<TokenSet["authorization_details"]>>().toBeArray()
    // @ts-expect-error token_type is lowercase: "Bearer" is not one
    const upper: TokenSet = { token_type: "Bearer" }
    void upper
  })

  it("AdapterAccount requires userId and narrows type to oauth, oidc, email, webauthn", () => {
    expectTypeOf<AdapterAccount["userId"]>().toEqualTypeOf<string>()
    expectTypeOf<AdapterAccount["type"]>().toEqualTypeOf<"oauth" | "oidc" | "email" | "webauthn">()
    expectTypeOf<AdapterAccount>().toExtend<Account>()
  })
})

describe("§2.7–2.9 adapter session, verification token, authenticator", () => {
  it("AdapterSession has sessionToken, userId and expires: Date", () => {
    expectTypeOf<AdapterSession["sessionToken"]>().toEqualTypeOf<string>()
    expectTypeOf<AdapterSession["userId"]>().toEqualTypeOf<string>()
    expectTypeOf<AdapterSession["expires"]>().toEqualTypeOf<Date>()
    expectTypeOf<{ sessionToken: string; userId: string; expires: Date }>().toExtend<AdapterSession>()
  })

  it("VerificationToken is { identifier, token, expires: Date }", () => {
    expectTypeOf<VerificationToken>().toEqualTypeOf<{ identifier: string; token: string; expires: Date }>()
  })

  it("AdapterAuthenticator has the WebAuthn fields with userId required; Authenticator makes userId optional", () => {
    // Plus Portcullis's optional `name` (the account center's passkey names, docs/account.md).
    expectTypeOf<AdapterAuthenticator["name"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<Omit<AdapterAuthenticator, "name">>().toEqualTypeOf<{
      credentialID: string
      credentialPublicKey: string
      counter: number
      credentialDeviceType: string
      credentialBackedUp: boolean
      transports?: string | null
      providerAccountId: string
      userId: string
    }>()
    expectTypeOf<Authenticator["userId"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<Omit<Authenticator, "userId">>().toEqualTypeOf<Omit<AdapterAuthenticator, "userId">>()
  })
})

describe("§2.10–2.11 JWT and public provider", () => {
  it("JWT is an open record with the optional known claims", () => {
    expectTypeOf<JWT>().toExtend<Record<string, unknown>>()
    expectTypeOf<JWT["email"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<JWT["name"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<JWT["picture"]>().toEqualTypeOf<string | null | undefined>()
    expectTypeOf<JWT["sub"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<JWT["jti"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<JWT["exp"]>().toEqualTypeOf<number | undefined>()
    expectTypeOf<JWT["iat"]>().toEqualTypeOf<number | undefined>()
    expectTypeOf<JWT["role"]>().toEqualTypeOf<unknown>()
    expectTypeOf<{}>().toExtend<JWT>()
  })

  it("PublicProvider is { id, name, type, signinUrl, callbackUrl }", () => {
    expectTypeOf<PublicProvider>().toEqualTypeOf<{ id: string; name: string; type: string; signinUrl: string; callbackUrl: string }>()
  })
})

describe("§2.12–2.20 configuration", () => {
  it("AuthConfig has every option of §2.12, all optional but providers", () => {
    type Spec = "providers" | "adapter" | "basePath" | "secret" | "session" | "jwt" | "callbacks" | "events" | "cookies" | "pages" | "theme" | "logger" | "debug" | "trustHost" | "useSecureCookies" | "redirectProxyUrl" | "experimental" | "skipCSRFCheck"
    expectTypeOf<Spec>().toExtend<keyof AuthConfig>()
    expectTypeOf<{ providers: [] }>().toExtend<AuthConfig>()
    expectTypeOf<AuthConfig["secret"]>().toEqualTypeOf<string | string[] | undefined>()
    expectTypeOf<AuthConfig["debug"]>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<NonNullable<AuthConfig["experimental"]>>().toEqualTypeOf<{ enableWebAuthn?: boolean }>()
    expectTypeOf<AuthConfig["skipCSRFCheck"]>().toEqualTypeOf<typeof import("@portcullis/core").skipCSRFCheck | undefined>()
    expectTypeOf<AuthConfig["logger"]>().toEqualTypeOf<Partial<LoggerInstance> | undefined>()
  })

  it("§2.13 session options: strategy, maxAge, updateAge, generateSessionToken", () => {
    expectTypeOf<SessionOptions["strategy"]>().toEqualTypeOf<"jwt" | "database">()
    expectTypeOf<SessionOptions["maxAge"]>().toEqualTypeOf<number>()
    expectTypeOf<SessionOptions["updateAge"]>().toEqualTypeOf<number>()
    expectTypeOf<SessionOptions["generateSessionToken"]>().toEqualTypeOf<() => string>()
    expectTypeOf<AuthConfig["session"]>().toEqualTypeOf<Partial<SessionOptions> | undefined>()
  })

  it("§2.14 JWT options and the encode/decode parameters", () => {
    expectTypeOf<JWTOptions["maxAge"]>().toEqualTypeOf<number>()
    expectTypeOf<JWTEncodeParams>().toEqualTypeOf<{ token?: JWT; salt: string; secret: string | string[]; maxAge?: number }>()
    expectTypeOf<JWTDecodeParams>().toEqualTypeOf<{ token?: string; salt: string; secret: string | string[] }>()
    expectTypeOf<ReturnType<JWTOptions["decode"]>>().toEqualTypeOf<JWT | null | PromiseLike<JWT | null>>()
    expectTypeOf<ReturnType<JWTOptions["encode"]>>().toEqualTypeOf<string | PromiseLike<string>>()
  })

  it("§2.16 cookie options: the seven keys, each a partial { name, options }", () => {
    type Seven = "callbackUrl" | "csrfToken" | "nonce" | "pkceCodeVerifier" | "sessionToken" | "state" | "webauthnChallenge"
    expectTypeOf<Seven>().toExtend<keyof PartialCookiesOptions>()
    expectTypeOf<NonNullable<PartialCookiesOptions["state"]>>().toEqualTypeOf<{ name?: string; options?: CookieOption["options"] }>()
  })

  it("§2.17 pages: signIn, signOut, error, verifyRequest, newUser", () => {
    expectTypeOf<keyof PagesOptions>().toEqualTypeOf<"signIn" | "signOut" | "error" | "verifyRequest" | "newUser">()
    expectTypeOf<AuthConfig["pages"]>().toEqualTypeOf<Partial<PagesOptions> | undefined>()
  })

  it("§2.18 theme: brandColor, buttonText, colorScheme, logo", () => {
    expectTypeOf<Omit<Theme, "layout">>().toEqualTypeOf<{ brandColor?: string; buttonText?: string; colorScheme?: "auto" | "dark" | "light"; logo?: string }>()
    // Plus Portcullis's `layout` (docs/pages.md): the identifier-first page, or Auth.js's.
    expectTypeOf<Theme["layout"]>().toEqualTypeOf<"identifier" | "authjs" | undefined>()
  })

  it("§2.19 logger: debug(message, metadata?), error(error), warn(code)", () => {
    expectTypeOf<LoggerInstance["debug"]>().toEqualTypeOf<(message: string, metadata?: unknown) => void>()
    expectTypeOf<LoggerInstance["error"]>().toEqualTypeOf<(error: Error) => void>()
    expectTypeOf<Parameters<LoggerInstance["warn"]>[0]>().toEqualTypeOf<WarningCode>()
    // A logger with only some methods is a valid option.
    expectTypeOf<{ logger: { error(e: Error): void } }>().toExtend<Pick<AuthConfig, "logger">>()
  })

  it("§2.20 internal response: body, cookies, headers, redirect, status, all optional", () => {
    expectTypeOf<keyof InternalResponse>().toEqualTypeOf<"body" | "cookies" | "headers" | "redirect" | "status">()
    expectTypeOf<{}>().toExtend<InternalResponse>()
    expectTypeOf<InternalResponse["redirect"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<InternalResponse["status"]>().toEqualTypeOf<number | undefined>()
  })
})

describe("§4.4 and §6 callback and event parameters", () => {
  it("signIn callback: user, account, profile, email.verificationRequest, credentials; result boolean or string", () => {
    expectTypeOf<SignInCallbackParams["account"]>().toEqualTypeOf<Account | null | undefined>()
    expectTypeOf<NonNullable<SignInCallbackParams["email"]>>().toEqualTypeOf<{ verificationRequest?: boolean }>()
    expectTypeOf<Awaited<ReturnType<CallbacksOptions["signIn"]>>>().toEqualTypeOf<boolean | string>()
    expectTypeOf<Parameters<CallbacksOptions["redirect"]>[0]>().toEqualTypeOf<{ url: string; baseUrl: string }>()
  })

  it("jwt callback: trigger signIn | signUp | update, deprecated isNewUser, session", () => {
    expectTypeOf<JWTCallbackParams["trigger"]>().toEqualTypeOf<"signIn" | "signUp" | "update" | undefined>()
    expectTypeOf<JWTCallbackParams["isNewUser"]>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<Awaited<ReturnType<CallbacksOptions["jwt"]>>>().toEqualTypeOf<JWT | null>()
  })

  it("event messages carry the fields of §6", () => {
    expectTypeOf<Parameters<EventCallbacks["createUser"]>[0]>().toEqualTypeOf<{ user: User }>()
    expectTypeOf<Parameters<EventCallbacks["updateUser"]>[0]>().toEqualTypeOf<{ user: User }>()
    expectTypeOf<Parameters<EventCallbacks["linkAccount"]>[0]>().toEqualTypeOf<{ user: User | AdapterUser; account: Account; profile: User | AdapterUser }>()
    expectTypeOf<Parameters<EventCallbacks["session"]>[0]>().toEqualTypeOf<{ session: Session; token: JWT }>()
    expectTypeOf<{ token: null }>().toExtend<Parameters<EventCallbacks["signOut"]>[0]>()
    expectTypeOf<{ session: undefined }>().toExtend<Parameters<EventCallbacks["signOut"]>[0]>()
  })
})

describe("§9.6 SemverString", () => {
  it("accepts v<n>, v<n>.<n>, v<n>.<n>.<n> and nothing else", () => {
    expectTypeOf<"v1">().toExtend<SemverString>()
    expectTypeOf<"v1.2">().toExtend<SemverString>()
    expectTypeOf<"v1.2.3">().toExtend<SemverString>()
    expectTypeOf<"1.2.3">().not.toExtend<SemverString>()
    expectTypeOf<"v">().not.toExtend<SemverString>()
    expectTypeOf<"version1">().not.toExtend<SemverString>()
    // @ts-expect-error a version without the leading v
    const bare: SemverString = "2.0.0"
    void bare
  })
})

describe("these type assertions are checked", () => {
  it("this file compiles under the repository's strict options with no diagnostic", () => {
    const self = fileURLToPath(import.meta.url)
    const root = fileURLToPath(new URL("../../../../", import.meta.url))
    // Core's ambient declarations for untyped deep imports, as its tsconfig's `include` has them.
    const ambient = ts.sys.readDirectory(`${root}packages/core/src`, [".d.ts"])
    const program = ts.createProgram([self, ...ambient], {
      noEmit: true,
      skipLibCheck: true,
      strict: true,
      exactOptionalPropertyTypes: false,
      target: ts.ScriptTarget.ES2023,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
      allowImportingTsExtensions: true,
      baseUrl: root,
      // The same mapping as vitest.config.ts's aliases: the package names resolve to sources.
      paths: { "@portcullis/core": ["packages/core/src/index.ts"], "@portcullis/core/*": ["packages/core/src/*.ts"] },
    })
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : ""
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
    })
    expect(diagnostics).toEqual([])
  }, 120_000)
})
