/**
 * Issue 20, part 4: the built-in pages in the request's language, through `Auth()`: chosen
 * by `Accept-Language`, by the `i18n` option, or by the app's function; sentences the app
 * overrides; a right-to-left page; hostile overrides and values escaped; a bad option a
 * configuration error.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import GitHub from "@portcullis/core/providers/github"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { credentialsConfig } from "../helpers.js"

const origin = "http://localhost:3000"

async function page(config: AuthConfig, path: string, headers: Record<string, string> = {}) {
  const response = await Auth(new Request(`${origin}/auth/${path}`, { headers }), config)
  const body = await response.text()
  return { response, body, lang: /<html lang="([^"]*)" dir="([^"]*)"/.exec(body)?.slice(1) ?? [], h1: /<h1>([^<]*)<\/h1>/.exec(body)?.[1] }
}

describe("language from Accept-Language", () => {
  const config = credentialsConfig()

  it("renders the sign-in page in German and Japanese, with lang, and English by default", async () => {
    const de = await page(config, "signin", { "accept-language": "de-DE,de;q=0.9,en;q=0.8" })
    expect(de.lang).toEqual(["de", "ltr"])
    expect(de.h1).toBe("Anmelden")
    expect(de.body).toContain("Mit Credentials anmelden")
    expect(de.response.headers.get("vary")).toContain("Accept-Language")

    const ja = await page(config, "signin", { "accept-language": "ja" })
    expect(ja.lang).toEqual(["ja", "ltr"])
    expect(ja.body).toContain("<title>サインイン</title>")
    expect(ja.body).toContain("Credentials でサインイン")

    const none = await page(config, "signin")
    expect(none.lang).toEqual(["en", "ltr"])
    // The identifier-first layout's title matches its heading (Auth.js's layout keeps "Sign In").
    expect(none.body).toContain("<title>Sign in</title>")
    expect((await page(config, "signin", { "accept-language": "xx, *" })).lang).toEqual(["en", "ltr"])
  })

  it("localizes the error explanation on the sign-in page and the error page", async () => {
    const signin = await page(config, "signin?error=CredentialsSignin", { "accept-language": "fr" })
    expect(signin.body).toContain("La connexion a échoué.")
    const error = await page(config, "error?error=Verification", { "accept-language": "es" })
    expect(error.response.status).toBe(403)
    expect(error.h1).toBe("El enlace ya no es válido")
    expect(error.body).toContain("Código de error: <code>Verification</code>")
    expect(error.body).toContain(">Volver a iniciar sesión</a>")
  })

  it("localizes the sign-out and verify-request pages", async () => {
    expect((await page(config, "signout", { "accept-language": "pt-BR" })).body).toContain("Tem certeza de que deseja sair?")
    const verify = await page(config, "verify-request", { "accept-language": "zh-CN" })
    expect(verify.h1).toBe("请查收邮件")
    expect(verify.body).toContain("返回 localhost:3000")
  })

  it("writes Arabic right to left", async () => {
    const ar = await page(config, "signin", { "accept-language": "ar-EG" })
    expect(ar.lang).toEqual(["ar", "rtl"])
    expect(ar.h1).toBe("تسجيل الدخول")
  })

  it("gives the passkey form's script its sentences in the page's language", async () => {
    const passkeys: AuthConfig = { ...credentialsConfig(), adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, providers: [Passkey({})] }
    const { body } = await page(passkeys, "signin", { "accept-language": "de" })
    const attr = /data-messages="([^"]*)"/.exec(body)![1]!.replaceAll("&quot;", '"')
    expect(JSON.parse(attr)).toMatchObject({ unsupported: "Dieser Browser unterstützt keine Passkeys." })
    expect(body).toContain('<label for="field-identifier-email">E-Mail</label>')
    // The provider's default English name is shown in the page's language.
    expect(body).toContain("Mit Passkey anmelden")
  })
})

describe("the i18n option", () => {
  it("forces one language for everyone with i18n.locale", async () => {
    const config = credentialsConfig({ i18n: { locale: "de" } })
    expect((await page(config, "signin", { "accept-language": "ja" })).lang).toEqual(["de", "ltr"])
  })

  it("lets a function of the request choose, and falls back to Accept-Language when it returns nothing", async () => {
    const config = credentialsConfig({ i18n: { locale: (request) => /lang=(\w+)/.exec(request.headers.get("cookie") ?? "")?.[1] } })
    expect((await page(config, "signin", { cookie: "lang=fr", "accept-language": "ja" })).lang).toEqual(["fr", "ltr"])
    expect((await page(config, "signin", { "accept-language": "ja" })).lang).toEqual(["ja", "ltr"])
    // A choice with no catalog is no choice.
    expect((await page(config, "signin", { cookie: "lang=xx", "accept-language": "es" })).lang).toEqual(["es", "ltr"])
  })

  it("replaces the app's sentences, adds a language, and restricts the offer", async () => {
    const config = credentialsConfig({
      i18n: {
        defaultLocale: "de",
        locales: ["de", "it"],
        messages: { de: { signin: { heading: "Willkommen zurück" } }, it: { signin: { heading: "Accedi", signInWith: "Accedi con {provider}" } } },
      },
    })
    expect((await page(config, "signin", { "accept-language": "de" })).h1).toBe("Willkommen zurück")
    const it_ = await page(config, "signin", { "accept-language": "it-IT" })
    expect(it_.lang).toEqual(["it", "ltr"])
    expect(it_.h1).toBe("Accedi")
    expect(it_.body).toContain("Accedi con Credentials")
    // Sentences Italian lacks come from the default language, German.
    expect(it_.body).toContain("<title>Anmelden</title>")
    // English is not offered: the default answers.
    expect((await page(config, "signin", { "accept-language": "en" })).lang).toEqual(["de", "ltr"])
  })

  it("escapes overrides and the values put into sentences", async () => {
    const config: AuthConfig = {
      ...credentialsConfig({ i18n: { messages: { en: { signin: { heading: "<img src=x onerror=alert(1)>" } } } } }),
      providers: [GitHub({ clientId: "id", clientSecret: "secret", name: "<b>Evil</b>" })],
    }
    const { body } = await page(config, "signin")
    expect(body).toContain("<h1>&lt;img src=x onerror=alert(1)&gt;</h1>")
    expect(body).toContain("Sign in with &lt;b&gt;Evil&lt;/b&gt;")
    expect(body).not.toContain("<b>Evil</b>")
  })

  for (const [what, i18n] of [
    ["a typo in an override", { messages: { en: { signin: { heding: "x" } } } }],
    ["an override that is not a string", { messages: { de: { signin: { heading: 42 } } } }],
    ["a default without a catalog", { defaultLocale: "it" }],
    ["a forced locale that is not offered", { locale: "fr", locales: ["en", "de"] }],
    ["an offer without the default", { locales: ["de"] }],
    ["a locale tag that is not one", { messages: { "../x": {} } }],
    ["a direction that is neither", { messages: { en: { dir: "up" } } }],
    ["an option that is not an object", "de"],
  ] as const) {
    it(`is a configuration error for ${what}, never a crash`, async () => {
      const errors: unknown[] = []
      const config = credentialsConfig({ i18n: i18n as never, logger: { error: (e) => errors.push(e), warn: () => {} } })
      const { response, body } = await page(config, "signin", { "accept-language": "de" })
      expect(response.status).toBe(500)
      expect(body).toContain("Server error")
      expect(body).not.toContain("at resolveI18n")
      expect(errors.map((e) => (e as { type?: string }).type)).toContain("InvalidConfig")
    })
  }
})

describe("every built-in page picks its language the same way", () => {
  it("answers the password provider's pages in the request's language, also when the app's locale function throws", async () => {
    const errors: unknown[] = []
    const config: AuthConfig = {
      ...credentialsConfig(),
      adapter: MemoryAdapter(),
      providers: [Password({ mailer: Nodemailer({ server: "smtp://127.0.0.1:9" }) })],
      i18n: { locale: () => { throw new Error("a malformed language cookie") } },
      logger: { error: (e) => errors.push(e), warn: () => {} },
    }
    const signup = await page(config, "password/signup", { "accept-language": "de" })
    expect(signup.response.status).toBe(200)
    expect(signup.lang).toEqual(["de", "ltr"])
    expect(errors.map((e) => (e as { type?: string }).type)).toContain("InvalidConfig")
  })
})
