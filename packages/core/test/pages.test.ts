import { describe, expect, it } from "vitest"
import { escapeHtml, html, raw, safeUrl } from "../src/lib/pages/html.js"
import { cssColor } from "../src/lib/pages/color.js"
import {
  errorPageMessages,
  renderError,
  renderSignOut,
  renderVerifyRequest,
  signinErrorMessages,
  type PageBase,
  type PageProvider,
} from "../src/lib/pages/index.js"
import { webauthnPageScripts } from "../src/lib/webauthn/page-script.js"
import { IDENTIFIER_STEP_SCRIPT, renderSignIn } from "../src/lib/pages/signin.js"

/** The scripts a page may inline: the passkey client's, and the identifier step's own. */
const PAGE_SCRIPTS = [...webauthnPageScripts, IDENTIFIER_STEP_SCRIPT]

// ---------------------------------------------------------------------------------------
// A deliberately strict reader for the markup these pages produce. It accepts only what
// the templates emit (double-quoted or bare attributes, escaped text), so any injected
// quote or angle bracket that escaped escaping makes it throw or shows up as an
// unexpected tag or attribute.
// ---------------------------------------------------------------------------------------

interface Element {
  name: string
  attrs: Record<string, string>
  /** Index of the enclosing <form> in document order, if any. */
  form: number | undefined
}

const ATTRIBUTE_NAMES = new Set([
  "lang", "dir", "class", "style", "charset", "name", "content", "src", "alt", "width", "height", "loading",
  "method", "action", "type", "value", "id", "for", "placeholder", "autocomplete", "required", "href",
  "role", "data-webauthn-provider", "data-options-url", "data-conditional-ui", "data-messages",
  // The identifier-first layout's steps, for its inline script.
  "hidden", "data-identifier-step", "data-identifier-methods", "data-identifier-email", "data-identifier-shown",
])
const TAGS = new Set([
  "html", "head", "meta", "title", "style", "body", "header", "img", "main", "h1", "p", "div", "form",
  "input", "label", "button", "span", "a", "code", "script", "strong",
])

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!)
}

function parse(doc: string): { elements: Element[]; text: string } {
  expect(doc.startsWith("<!DOCTYPE html>\n")).toBe(true)
  const elements: Element[] = []
  let text = ""
  let form: number | undefined
  let forms = 0
  let i = "<!DOCTYPE html>".length
  while (i < doc.length) {
    const lt = doc.indexOf("<", i)
    const chunk = doc.slice(i, lt === -1 ? doc.length : lt)
    // Text must be fully escaped: a raw `>` or quote-free breakout would show here.
    expect(chunk, `raw '>' in text: ${chunk}`).not.toContain(">")
    text += decode(chunk)
    if (lt === -1) break
    const tag = /^<(\/?)([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*>/.exec(doc.slice(lt))
    if (!tag) throw new Error(`unparseable markup at: ${doc.slice(lt, lt + 80)}`)
    const [whole, closing, name, attrText] = tag as unknown as [string, string, string, string]
    expect(TAGS, `unexpected tag <${name}>`).toContain(name)
    i = lt + whole.length
    if (closing) {
      if (name === "form") form = undefined
      continue
    }
    const attrs: Record<string, string> = {}
    for (const m of attrText.matchAll(/([a-z-]+)(?:="([^"]*)")?/g)) {
      const attr = m[1]!
      expect(ATTRIBUTE_NAMES, `unexpected attribute ${attr} on <${name}>`).toContain(attr)
      expect(attrs, `duplicate attribute ${attr}`).not.toHaveProperty(attr)
      attrs[attr] = decode(m[2] ?? "")
    }
    if (name === "form") form = forms++
    elements.push({ name, attrs, form })
    // The stylesheet is raw text; skip to its end tag.
    if (name === "style") i = doc.indexOf("</style>", i)
    // The only scripts are the passkey client's own, byte for byte; skip past each.
    if (name === "script") {
      const end = doc.indexOf("</script>", i)
      expect(PAGE_SCRIPTS, "unexpected script").toContain(doc.slice(i, end))
      i = end
    }
  }
  return { elements, text }
}

const urlAttributes = (elements: Element[]) =>
  elements.flatMap((e) => (["href", "src", "action"] as const).filter((a) => a in e.attrs).map((a) => e.attrs[a]!))

// ---------------------------------------------------------------------------------------

// Auth.js's layout: these tests pin its forms (the identifier-first layout has identifier-first.test.ts).
const base: PageBase = { theme: { layout: "authjs" }, basePath: "/auth", origin: "https://app.example", csrfToken: "csrf-123" }

const providers: PageProvider[] = [
  {
    id: "credentials",
    name: "Password",
    type: "credentials",
    signinUrl: "/auth/signin/credentials",
    callbackUrl: "/auth/callback/credentials",
    credentials: {
      username: { label: "Username", autocomplete: "username", required: true },
      password: { label: "Password", type: "password" },
      tenant: { type: "hidden" },
    },
  },
  { id: "github", name: "GitHub", type: "oauth", signinUrl: "/auth/signin/github", callbackUrl: "/auth/callback/github", style: { bg: "#24292f", text: "#fff", logo: "https://cdn.example/gh.svg" } },
  { id: "google", name: "Google", type: "oidc", signinUrl: "/auth/signin/google", callbackUrl: "/auth/callback/google" },
  { id: "email", name: "Email", type: "email", signinUrl: "/auth/signin/email", callbackUrl: "/auth/callback/email" },
  { id: "passkey", name: "Passkey", type: "webauthn", signinUrl: "/auth/signin/passkey", callbackUrl: "/auth/callback/passkey" },
]

// The passkey provider's scripts, as the sign-in action hands them to the renderer.
const scripts = webauthnPageScripts

const signIn = (extra: Partial<Parameters<typeof renderSignIn>[0]> = {}) =>
  renderSignIn({ ...base, providers, scripts, callbackUrl: "/dashboard", ...extra })

/** Every page, for checks that hold across all of them. */
const allPages = (extra: Partial<PageBase> = {}, callbackUrl = "/dashboard") => [
  renderSignIn({ ...base, ...extra, providers, scripts, callbackUrl, error: "OAuthSignin" }),
  renderSignOut({ ...base, ...extra, callbackUrl }),
  renderError({ ...base, ...extra, error: "Verification" }).html,
  renderVerifyRequest({ ...base, ...extra }),
]

const XSS = `"><script>alert(1)</script>`

describe("html template tag", () => {
  it("escapes the five significant characters", () => {
    expect(escapeHtml(`& < > " '`)).toBe("&amp; &lt; &gt; &quot; &#39;")
    expect(html`<p title="${`a"b`}">${"<b>"}</p>`.toString()).toBe(`<p title="a&quot;b">&lt;b&gt;</p>`)
  })

  it("keeps nested templates and arrays of them as markup, escaping strings inside arrays", () => {
    const items = ["<x>", html`<i>y</i>`]
    expect(html`<div>${html`<b>${"&"}</b>`}${items}</div>`.toString()).toBe("<div><b>&amp;</b>&lt;x&gt;<i>y</i></div>")
  })

  it("does not trust look-alike objects", () => {
    const fake = { toString: () => "<script>" } as unknown as string
    expect(html`${fake}`.toString()).toBe("&lt;script&gt;")
  })

  it("renders nothing for null, undefined and booleans, and raw() passes trusted markup", () => {
    expect(html`${null}${undefined}${false}${true}${0}`.toString()).toBe("0")
    expect(html`${raw("<hr>")}`.toString()).toBe("<hr>")
  })
})

describe("safeUrl", () => {
  it.each(["https://example.com/a", "http://example.com", "/auth/signin", "logo.png", "?x=1", "#top", "//cdn.example/x.svg"])(
    "lets %s through",
    (url) => expect(safeUrl(url)).toBe(url),
  )

  it.each([
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\u0001javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "",
    "   ",
  ])("blocks %j", (url) => expect(safeUrl(url)).toBe(""))
})

describe("escaping of interpolated values", () => {
  const hostile: PageProvider[] = providers.map((p) => ({
    ...p,
    id: p.id + XSS,
    name: p.name + XSS,
    style: { bg: XSS, text: XSS, brandColor: XSS, logo: XSS },
    credentials: p.credentials && { [XSS]: { label: XSS, placeholder: XSS, autocomplete: XSS, type: XSS } },
    formFields: p.type === "webauthn" ? { [XSS]: { label: XSS, autocomplete: XSS } } : undefined,
  }))
  const theme = { logo: XSS, brandColor: XSS, buttonText: XSS, colorScheme: XSS as "dark" }
  const pages = [
    renderSignIn({ ...base, theme, csrfToken: XSS, providers: hostile, scripts, callbackUrl: XSS, error: XSS, code: XSS, email: XSS }),
    renderSignOut({ ...base, theme, csrfToken: XSS, callbackUrl: XSS }),
    renderError({ ...base, theme, csrfToken: XSS, error: XSS }).html,
    renderVerifyRequest({ ...base, theme, csrfToken: XSS, provider: XSS }),
    // The identifier-first layout's second step shows the posted address; Auth.js's layout too.
    renderSignIn({ ...base, theme, csrfToken: XSS, providers: hostile, scripts, callbackUrl: XSS, identified: XSS }),
    renderSignIn({ ...base, theme: { ...theme, layout: "authjs" }, csrfToken: XSS, providers: hostile, scripts, callbackUrl: XSS, error: XSS, code: XSS, email: XSS }),
  ]

  it("never emits a raw <script (the passkey client's own scripts aside)", () => {
    const own = (page: string) => PAGE_SCRIPTS.reduce((rest, code) => rest.replace(`<script>${code}</script>`, ""), page)
    for (const page of pages) expect(own(page).toLowerCase()).not.toContain("<script")
  })

  it("keeps every value inside its attribute or text node", () => {
    // parse() throws on a broken tag and rejects unknown tags and attributes.
    for (const page of pages) parse(page)
  })

  it("round-trips hostile values intact where they are data", () => {
    const { elements, text } = parse(pages[0]!)
    const hidden = elements.filter((e) => e.attrs.type === "hidden")
    expect(hidden.filter((e) => e.attrs.name === "callbackUrl").every((e) => e.attrs.value === XSS)).toBe(true)
    expect(hidden.filter((e) => e.attrs.name === "csrfToken").every((e) => e.attrs.value === XSS)).toBe(true)
    expect(elements.find((e) => e.attrs.type === "email")?.attrs.value).toBe(XSS)
    expect(text).toContain(`Sign in with GitHub${XSS}`)
    expect(elements.find((e) => e.attrs["data-webauthn-provider"])?.attrs["data-webauthn-provider"]).toBe(`passkey${XSS}`)
  })

  it("does not show an unknown error code on the sign-in page", () => {
    // Separate render: in the page above, provider names legitimately contain the payload.
    const { text } = parse(signIn({ error: XSS }))
    expect(text).not.toContain("alert(1)")
    expect(text).toContain(signinErrorMessages.default)
  })

  it("shows only identifier-like codes on the error page, escaped", () => {
    expect(parse(pages[2]!).text).not.toContain("alert(1)")
    const shown = renderError({ ...base, error: "Some_Code-1" }).html
    expect(shown).toContain("<code>Some_Code-1</code>")
  })

  it("drops hostile colours and falls back to the automatic scheme", () => {
    const { elements } = parse(pages[0]!)
    expect(elements.some((e) => "style" in e.attrs)).toBe(false)
    expect(elements[0]!.attrs.class).toBe("pc-auto")
  })
})

describe("URLs in href, src and action", () => {
  const js = "javascript:alert(1)"

  it("only ever hold http(s) or relative URLs, on every page", () => {
    for (const page of allPages({ theme: { logo: "https://cdn.example/logo.svg" } })) {
      const urls = urlAttributes(parse(page).elements)
      expect(urls.length).toBeGreaterThan(0)
      for (const url of urls) expect(safeUrl(url)).toBe(url)
    }
  })

  it("drops a javascript: theme logo", () => {
    for (const page of allPages({ theme: { logo: js } })) {
      expect(parse(page).elements.some((e) => e.attrs.class === "logo")).toBe(false)
      expect(page).not.toContain("javascript:")
    }
  })

  it("drops a javascript: provider logo but keeps the button", () => {
    const page = renderSignIn({ ...base, callbackUrl: "/", providers: [{ ...providers[1]!, style: { logo: js } }] })
    expect(page).not.toContain("javascript:")
    expect(parse(page).text).toContain("Sign in with GitHub")
  })

  it("leaves out a provider form whose target is not http(s)", () => {
    const bad = providers.map((p) => ({ ...p, signinUrl: js, callbackUrl: js }))
    const page = renderSignIn({ ...base, callbackUrl: "/", providers: bad })
    expect(page).not.toContain("javascript:")
    expect(parse(page).elements.some((e) => e.name === "form")).toBe(false)
  })

  it("omits the back link when the origin is not http(s), and builds links from basePath", () => {
    const verify = parse(renderVerifyRequest({ ...base, origin: js }))
    expect(verify.elements.some((e) => e.name === "a")).toBe(false)
    const error = parse(renderError({ ...base, basePath: "/custom/auth/", error: "AccessDenied" }).html)
    expect(error.elements.find((e) => e.name === "a")?.attrs.href).toBe("/custom/auth/signin")
  })

  it("links the verify page back to the origin", () => {
    const { elements, text } = parse(renderVerifyRequest(base))
    expect(elements.find((e) => e.name === "a")?.attrs.href).toBe("https://app.example")
    expect(text).toContain("Check your email")
  })
})

describe("forms", () => {
  it("every form posts and carries the csrfToken and callbackUrl hidden inputs", () => {
    for (const page of allPages({}, "/after?x=1&y=2")) {
      const { elements } = parse(page)
      for (const form of elements.filter((e) => e.name === "form")) {
        expect(form.attrs.method).toBe("post")
        const inputs = elements.filter((e) => e.name === "input" && e.form === elements.filter((f) => f.name === "form").indexOf(form))
        const hidden = (name: string) => inputs.find((i) => i.attrs.type === "hidden" && i.attrs.name === name)?.attrs.value
        expect(hidden("csrfToken")).toBe("csrf-123")
        expect(hidden("callbackUrl")).toBe("/after?x=1&y=2")
      }
    }
  })

  it("posts each provider type to the right place", () => {
    const forms = parse(signIn()).elements.filter((e) => e.name === "form").map((f) => f.attrs.action)
    expect(forms).toEqual([
      "/auth/callback/credentials",
      "/auth/signin/github",
      "/auth/signin/google",
      "/auth/signin/email",
      "/auth/callback/passkey",
    ])
    const signOut = parse(renderSignOut({ ...base, callbackUrl: "/" })).elements.find((e) => e.name === "form")
    expect(signOut?.attrs.action).toBe("/auth/signout")
  })

  it("renders credentials fields from their configuration", () => {
    const { elements } = parse(signIn())
    const username = elements.find((e) => e.attrs.name === "username")!.attrs
    expect(username).toMatchObject({ type: "text", autocomplete: "username", required: "" })
    const password = elements.find((e) => e.attrs.name === "password")!.attrs
    expect(password.type).toBe("password")
    expect(password).not.toHaveProperty("required")
    expect(elements.find((e) => e.attrs.name === "tenant")?.attrs.type).toBe("hidden")
  })

  it("falls back to text for input types that would change what the form does", () => {
    const p: PageProvider = { ...providers[0]!, credentials: { x: { type: "submit" }, y: { type: "file" } } }
    const { elements } = parse(renderSignIn({ ...base, providers: [p], callbackUrl: "/" }))
    expect(elements.filter((e) => e.name === "input" && e.attrs.type !== "hidden").map((e) => e.attrs.type)).toEqual(["text", "text"])
  })

  it("renders a required, pre-filled email field for email providers", () => {
    const { elements } = parse(signIn({ email: "a@b.example" }))
    const email = elements.find((e) => e.form === 3 && e.attrs.name === "email")!.attrs
    expect(email).toMatchObject({ type: "email", autocomplete: "email", required: "", value: "a@b.example" })
  })

  it("marks the WebAuthn form for the client script, with a default username field", () => {
    const { elements, text } = parse(signIn())
    const form = elements.find((e) => e.attrs.id === "passkey-form")!.attrs
    expect(form).toMatchObject({
      action: "/auth/callback/passkey",
      "data-webauthn-provider": "passkey",
      "data-options-url": "/auth/webauthn-options/passkey",
    })
    const field = elements.find((e) => e.form === 4 && e.attrs.name === "email")!.attrs
    expect(field.autocomplete).toBe("username webauthn")
    expect(text).toContain("Sign in with Passkey")
    expect(form["data-conditional-ui"]).toBe("")
    expect(elements.filter((e) => e.name === "script")).toHaveLength(webauthnPageScripts.length)
  })

  it("uses the WebAuthn provider's formFields when given", () => {
    const p: PageProvider = { ...providers[4]!, formFields: { handle: { label: "Handle", autocomplete: "username webauthn" } } }
    const { elements, text } = parse(renderSignIn({ ...base, providers: [p], callbackUrl: "/" }))
    expect(elements.find((e) => e.attrs.name === "handle")?.attrs.type).toBe("text")
    expect(text).toContain("Handle")
  })

  it("names every provider in its button", () => {
    const { text } = parse(signIn())
    for (const p of providers) expect(text).toContain(`Sign in with ${p.name}`)
  })
})

describe("labels", () => {
  it("every visible input has a unique id and a <label for> pointing at it", () => {
    // Two providers with the same field names must still get distinct ids.
    const twice = [...providers, { ...providers[3]!, id: "email" }, { ...providers[0]!, id: "credentials" }]
    for (const page of [signIn(), renderSignIn({ ...base, providers: twice, callbackUrl: "/" })]) {
      const { elements } = parse(page)
      const inputs = elements.filter((e) => e.name === "input" && e.attrs.type !== "hidden")
      const labels = elements.filter((e) => e.name === "label").map((l) => l.attrs.for)
      const ids = elements.filter((e) => e.attrs.id).map((e) => e.attrs.id!)
      expect(new Set(ids).size).toBe(ids.length)
      for (const input of inputs) {
        expect(input.attrs.id).toMatch(/^[A-Za-z][\w-]*$/)
        expect(labels).toContain(input.attrs.id)
      }
      expect(labels.length).toBe(inputs.length)
    }
  })

  it("uses the configured label text, or the field name", () => {
    const p: PageProvider = { ...providers[0]!, credentials: { pin: { type: "password" }, user: { label: "Your name" } } }
    const { text } = parse(renderSignIn({ ...base, providers: [p], callbackUrl: "/" }))
    expect(text).toContain("pin")
    expect(text).toContain("Your name")
  })
})

describe("sign-in layout", () => {
  it("puts 'or' between groups, keeping adjacent OAuth buttons together", () => {
    const { elements } = parse(signIn())
    // credentials | github+google | email | passkey -> three separators
    expect(elements.filter((e) => e.attrs.class === "divider")).toHaveLength(3)
  })

  it("says so when there is nothing to sign in with", () => {
    expect(parse(renderSignIn({ ...base, providers: [], callbackUrl: "/" })).text).toContain("No sign-in methods")
  })
})

describe("sign-in error messages", () => {
  const alertText = (error: string) => {
    const page = signIn({ error })
    expect(page).toContain('role="alert"')
    return parse(page).text
  }

  it("has no alert without an error", () => {
    expect(signIn()).not.toContain('role="alert"')
  })

  it.each(["Signin", "OAuthSignin", "OAuthCallbackError", "OAuthCreateAccount", "EmailCreateAccount", "Callback"])(
    "%s suggests a different account",
    (code) => expect(alertText(code)).toMatch(/different account/),
  )

  it.each([
    ["OAuthAccountNotLinked", /already linked/],
    ["EmailSignin", /could not send/],
    ["SessionRequired", /sign in to see this page/],
    ["MissingCSRF", /expired/],
    ["AccessDenied", /permission/],
    ["Verification", /no longer valid/],
  ])("%s has its own message", (code, pattern) => expect(alertText(code)).toMatch(pattern))

  it("CredentialsSignin does not say which field was wrong", () => {
    const message = signinErrorMessages.CredentialsSignin
    expect(alertText("CredentialsSignin")).toContain(message)
    expect(message).toMatch(/check the details/)
    expect(message).not.toMatch(/password|username|email/i)
  })

  it.each(["Nope", "constructor", "__proto__", "toString", "default"])("unknown code %s gets the generic message", (code) => {
    const text = alertText(code)
    expect(text).toContain(signinErrorMessages.default)
    expect(text).not.toContain(code === "default" ? "\u0000" : code)
  })
})

describe("error page statuses", () => {
  it.each([
    ["Configuration", 500, errorPageMessages.Configuration],
    ["AccessDenied", 403, errorPageMessages.AccessDenied],
    ["Verification", 403, errorPageMessages.Verification],
    ["Whatever", 200, errorPageMessages.default],
    [undefined, 200, errorPageMessages.default],
    ["constructor", 200, errorPageMessages.default],
  ])("%s -> %i", (error, status, message) => {
    const result = renderError({ ...base, ...(error === undefined ? {} : { error }) })
    expect(result.status).toBe(status)
    const { elements, text } = parse(result.html)
    expect(text).toContain(message)
    expect(elements.find((e) => e.name === "a")?.attrs.href).toBe("/auth/signin")
  })

  it("mentions the server logs for configuration errors", () => {
    expect(errorPageMessages.Configuration).toMatch(/server logs/)
  })
})

describe("documents", () => {
  it("are complete HTML5 documents", () => {
    // The <title>s are Auth.js's (apps' browser tests look for them); the headings are ours.
    const titles = ["Sign In", "Sign Out", "Error", "Verify Request"]
    allPages().forEach((page, i) => {
      const { elements } = parse(page)
      expect(elements[0]).toMatchObject({ name: "html", attrs: { lang: "en" } })
      expect(elements.find((e) => e.name === "meta" && "charset" in e.attrs)?.attrs.charset).toBe("utf-8")
      expect(elements.find((e) => e.attrs.name === "viewport")).toBeDefined()
      expect(page).toContain(`<title>${titles[i]}</title>`)
      expect(elements.filter((e) => e.name === "h1")).toHaveLength(1)
      expect(page.trimEnd().endsWith("</html>")).toBe(true)
    })
  })

  it("sign-out asks for confirmation", () => {
    expect(parse(renderSignOut({ ...base, callbackUrl: "/" })).text).toContain("Are you sure you want to sign out?")
  })

  it("show the logo with alt text", () => {
    const img = parse(renderSignOut({ ...base, theme: { logo: "/logo.svg" }, callbackUrl: "/" })).elements.find((e) => e.name === "img")
    expect(img?.attrs.src).toBe("/logo.svg")
    expect(img?.attrs.alt).not.toBe("")
  })
})

describe("colour scheme classes", () => {
  it.each([
    [undefined, "pc-auto", "light dark"],
    ["auto", "pc-auto", "light dark"],
    ["light", "pc-light", "light"],
    ["dark", "pc-dark", "dark"],
  ] as const)("colorScheme %s -> class %s", (colorScheme, className, meta) => {
    for (const page of allPages({ theme: colorScheme ? { colorScheme } : {} })) {
      const { elements } = parse(page)
      expect(elements[0]!.attrs.class).toBe(className)
      expect(elements.find((e) => e.attrs.name === "color-scheme")?.attrs.content).toBe(meta)
    }
  })

  it("the stylesheet follows prefers-color-scheme only for auto", () => {
    expect(signIn()).toMatch(/@media \(prefers-color-scheme: dark\) \{\s*html\.pc-auto/)
  })
})

describe("brand colour validation", () => {
  it.each(["#0f766e", "#abc", "#AABBCCDD", "rgb(10, 20, 30)", "rgba(10 20 30 / 50%)", "hsl(210deg 50% 40%)", "hsla(210, 50%, 40%, 0.5)", "RebeccaPurple"])(
    "accepts %s",
    (color) => expect(cssColor(color)).toBe(color.startsWith("R") ? color.toLowerCase() : color),
  )

  it.each([
    "red;background:url(https://evil.example)",
    "url(https://evil.example)",
    "var(--x)",
    "expression(alert(1))",
    "rgb(1,2,3);x:y",
    "rgb(1,2,url(x))",
    "#12345",
    "notacolour",
    "</style><script>",
    "",
    "#" + "a".repeat(100),
  ])("rejects %j", (color) => expect(cssColor(color)).toBeUndefined())

  it("puts a valid theme colour and button text into custom properties", () => {
    const { elements } = parse(signIn({ theme: { brandColor: "#0f766e", buttonText: "white" } }))
    expect(elements[0]!.attrs.style).toBe("--pc-brand-theme:#0f766e;--pc-button-text-theme:white")
  })

  it("derives a readable button text colour when only the brand is set", () => {
    expect(parse(signIn({ theme: { brandColor: "#fde047" } })).elements[0]!.attrs.style).toContain("--pc-button-text-theme:#111318")
    expect(parse(signIn({ theme: { brandColor: "#1e1b4b" } })).elements[0]!.attrs.style).toContain("--pc-button-text-theme:#ffffff")
  })

  it("ignores an invalid theme colour", () => {
    const page = signIn({ theme: { brandColor: "red;x:url(y)" } })
    expect(parse(page).elements[0]!.attrs).not.toHaveProperty("style")
    expect(page).not.toContain("url(y)")
  })

  it("applies validated provider colours to the provider button and drops the rest", () => {
    const styled = (style: PageProvider["style"]) =>
      parse(renderSignIn({ ...base, callbackUrl: "/", providers: [{ ...providers[1]!, style }] })).elements.find((e) => e.name === "button")!.attrs.style
    expect(styled({ bg: "#24292f", text: "#ffffff", brandColor: "hsl(0 0% 10%)" })).toBe(
      "--pc-provider-bg:#24292f;--pc-provider-text:#ffffff;--pc-provider-accent:hsl(0 0% 10%)",
    )
    expect(styled({ bg: "#ffffff" })).toBe("--pc-provider-bg:#ffffff;--pc-provider-text:#111318")
    // A background whose readable text colour cannot be worked out, or a lone text colour,
    // could be unreadable against the palette, so neither is applied.
    expect(styled({ bg: "rgb(0 0 0)" })).toBeUndefined()
    expect(styled({ text: "#ffffff" })).toBeUndefined()
    expect(styled({ bg: "x;y:z", text: "#fff", brandColor: "url(a)" })).toBeUndefined()
  })
})

describe("the pages' CSP", () => {
  it("has only valid source expressions in form-action (no bracketed IPv6 host, which browsers drop with an error)", async () => {
    const { pageHeaders } = await import("../src/lib/http/response.js")
    const formAction = /form-action ([^;]+)/.exec(pageHeaders["Content-Security-Policy"]!)![1]!.split(" ")
    expect(formAction).toEqual(["'self'", "https:", "http://localhost:*", "http://127.0.0.1:*"])
  })
})
