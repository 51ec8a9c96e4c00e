import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { compile } from "svelte/compiler"
import { render } from "svelte/server"

const componentsDir = join(import.meta.dirname, "..", "components")
// Compiled output must sit where `svelte/internal/server` resolves to the same copy as `svelte/server`.
const outDir = join(import.meta.dirname, "..", "..", "..", "node_modules", ".cache", "portcullis-sveltekit-test")

/** Compiles a component for the server the way the app's vite-plugin-svelte would. */
function compileTo(name: string, source: string): string {
  const { js } = compile(source, { generate: "server", filename: name })
  const file = join(outDir, `${name}.js`)
  writeFileSync(file, js.code.replace(/from "\.\/(\w+)\.svelte"/g, 'from "./$1.svelte.js"'))
  return file
}

let Harness: any
beforeAll(async () => {
  mkdirSync(outDir, { recursive: true })
  for (const name of ["SignIn.svelte", "SignOut.svelte", "Render.svelte"]) compileTo(name, readFileSync(join(componentsDir, name), "utf8"))
  const harness = compileTo(
    "Harness.svelte",
    `<script>
  import SignIn from "./SignIn.svelte"
  import SignOut from "./SignOut.svelte"
  let { which } = $props()
</script>
{#if which === "credentials"}
  <SignIn provider="credentials" id="f" options={{ redirectTo: "/account", extra: "1" }}>
    {#snippet credentials()}<input name="username" /><input name="password" type="password" />{/snippet}
    {#snippet submitButton()}Let me in{/snippet}
  </SignIn>
{:else if which === "oauth"}
  <SignIn provider="github" signInPage="/auth-pages/login" authorizationParams={{ prompt: "consent" }} className="big" />
{:else if which === "slots"}
  <SignIn provider="credentials" id="s">
    <div slot="credentials"><input name="username" /></div>
    <div slot="submitButton" class="buttonPrimary">Slotted</div>
  </SignIn>
  <SignOut id="o"><span slot="submitButton" class="out">Leave</span></SignOut>
{:else if which === "email"}
  <SignIn provider="resend" id="default-email" />
  <SignIn provider="nodemailer" id="own-email"><input slot="email" name="email" class="mine" /></SignIn>
  <SignIn provider="github" id="no-email" />
{:else if which === "snippet-prop"}
  {#snippet button()}<em>From a prop</em>{/snippet}
  <SignIn provider="github" submitButton={button} />
  <SignOut submitButton={button} />
{:else}
  <SignOut signOutPage="bye" options={{ redirectTo: "/" }} />
{/if}`,
  )
  Harness = (await import(harness)).default
})



describe("SignIn and SignOut components", () => {
  it("SignIn posts to /signin with providerId, options as hidden fields and the credentials snippet", () => {
    const { body } = render(Harness, { props: { which: "credentials" } })
    expect(body).toMatch(/<form method="POST" action="\/signin" class="signInButton" id="f">/)
    expect(body).toContain('<input type="hidden" name="providerId" value="credentials"/>')
    expect(body).toContain('<input type="hidden" name="redirectTo" value="/account"/>')
    expect(body).toContain('<input type="hidden" name="extra" value="1"/>')
    expect(body).toContain('<input name="username"/>')
    expect(body).toMatch(/<button type="submit">[^]*Let me in[^]*<\/button>/)
  })

  it("SignIn takes a custom page and turns authorizationParams into authorizationParams-* fields", () => {
    const { body } = render(Harness, { props: { which: "oauth" } })
    expect(body).toMatch(/action="\/auth-pages\/login" class="signInButton big"/)
    expect(body).toContain('name="authorizationParams-prompt" value="consent"')
    expect(body).toMatch(/Sign in with github/)
  })

  it("SignOut posts to its page with redirectTo", () => {
    const { body } = render(Harness, { props: { which: "signout" } })
    expect(body).toMatch(/<form method="POST" action="\/bye" class="signOutButton">/)
    expect(body).toContain('<input type="hidden" name="redirectTo" value="/"/>')
    expect(body).toMatch(/Sign out/)
  })

  it("fill Auth.js's named slots: submitButton, credentials (SignIn) and submitButton (SignOut)", () => {
    const { body } = render(Harness, { props: { which: "slots" } })
    expect(body).toMatch(/<form method="POST" action="\/signin" class="signInButton" id="s">[^]*<div slot="credentials"><input name="username"\/><\/div>[^]*<button type="submit">[^]*<div slot="submitButton" class="buttonPrimary">Slotted<\/div>[^]*<\/button>/)
    expect(body).not.toMatch(/Sign in with credentials/)
    expect(body).toMatch(/<button type="submit">[^]*<span slot="submitButton" class="out">Leave<\/span>[^]*<\/button>/)
    expect(body).not.toMatch(/>Sign out</)
  })

  it("show an email field for email providers, which the email slot replaces, and none for others", () => {
    const { body } = render(Harness, { props: { which: "email" } })
    const form = (id: string) => body.match(new RegExp(`<form[^>]*id="${id}">[^]*?</form>`))![0]
    expect(form("default-email")).toMatch(/<input id="input-email-for-resend-provider" type="email" name="email" placeholder="email@example.com" required=""\/>/)
    expect(form("own-email")).toMatch(/<input slot="email" name="email" class="mine"\/>/)
    expect(form("own-email")).not.toMatch(/type="email"/)
    expect(form("no-email")).not.toMatch(/name="email"/)
  })

  it("render a snippet passed as a prop (not only as a child block)", () => {
    const { body } = render(Harness, { props: { which: "snippet-prop" } })
    expect(body.match(/<button type="submit">[^]*?<em>From a prop<\/em>[^]*?<\/button>/g)).toHaveLength(2)
  })
})
