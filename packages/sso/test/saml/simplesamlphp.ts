/**
 * A real SAML identity provider for the interoperability suite: Debian's SimpleSAMLphp 1.19
 * served by `php -S` from a throwaway config directory. Its IdP signs with a key made here,
 * authenticates everyone as one static user (exampleauth:StaticSource, no login form), and
 * knows our SP only from the metadata XML `serviceProvider().metadata()` produced.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isCI } from "@portcullis/adapter-test"
import type { SpKey } from "../../src/saml/keys.js"

const SSP_ROOT = "/usr/share/simplesamlphp"
const PHP = "/usr/bin/php"

/** Whether SimpleSAMLphp and PHP are installed; in CI their absence fails the suite. */
export function simpleSamlPhpAvailable(): boolean {
  if (existsSync(PHP) && existsSync(join(SSP_ROOT, "www", "saml2", "idp", "SSOService.php"))) return true
  if (isCI()) throw new Error(`SimpleSAMLphp not found at ${SSP_ROOT}: CI must install it (apt-get install -y simplesamlphp php-cli)`)
  console.warn("skipping the SimpleSAMLphp interoperability tests: apt-get install -y simplesamlphp php-cli")
  return false
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

const php = (value: unknown): string => JSON.stringify(value).replace(/\{/g, "[").replace(/\}/g, "]").replace(/":/g, "\" =>")

export interface SimpleSamlPhp {
  baseUrl: string
  entityId: string
  metadataUrl: string
  stop(): Promise<void>
  output: string[]
}

/**
 * Starts the IdP. `spMetadataXml` is our SP's metadata; `idpKey` the IdP's signing key;
 * `user` the static user's attributes; `idp` extra IdP-hosted metadata options.
 */
export async function startSimpleSamlPhp(o: { spMetadataXml: string; idpKey: SpKey; user: Record<string, string[]>; idp?: Record<string, unknown> }): Promise<SimpleSamlPhp> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const entityId = `${baseUrl}/saml2/idp/metadata.php`
  const dir = mkdtempSync(join(tmpdir(), "portcullis-ssp-"))
  for (const sub of ["config", "metadata", "cert", "tmp", "data", "log", "sessions"]) mkdirSync(join(dir, sub))
  writeFileSync(join(dir, "cert", "idp.key"), o.idpKey.privateKey)
  writeFileSync(join(dir, "cert", "idp.crt"), o.idpKey.certificate)
  writeFileSync(join(dir, "sp-metadata.xml"), o.spMetadataXml)
  writeFileSync(
    join(dir, "config", "config.php"),
    `<?php
require '${SSP_ROOT}/config/config.php';
$config['baseurlpath'] = '${baseUrl}/';
$config['certdir'] = '${dir}/cert/';
$config['loggingdir'] = '${dir}/log/';
$config['datadir'] = '${dir}/data/';
$config['tempdir'] = '${dir}/tmp';
$config['metadatadir'] = '${dir}/metadata/';
$config['secretsalt'] = 'portcullis-test-salt-${port}';
$config['auth.adminpassword'] = 'portcullis-test-${port}';
$config['logging.handler'] = 'file';
$config['logging.level'] = SimpleSAML\\Logger::WARNING;
$config['enable.saml20-idp'] = true;
$config['module.enable'] = ['exampleauth' => true, 'core' => true, 'saml' => true, 'admin' => true];
$config['session.cookie.secure'] = false;
$config['store.type'] = 'phpsession';
$config['metadata.sources'] = [['type' => 'flatfile'], ['type' => 'xml', 'file' => '${dir}/sp-metadata.xml']];
`,
  )
  writeFileSync(join(dir, "config", "authsources.php"), `<?php\n$config = ${php({ static: { 0: "exampleauth:StaticSource", ...o.user } }).replace('"0" =>', "0 =>")};\n`)
  writeFileSync(
    join(dir, "metadata", "saml20-idp-hosted.php"),
    `<?php\n$metadata['__DYNAMIC:1__'] = ${php({
      host: "__DEFAULT__",
      privatekey: "idp.key",
      certificate: "idp.crt",
      auth: "static",
      "signature.algorithm": "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      ...o.idp,
    })};\n`,
  )
  writeFileSync(join(dir, "metadata", "saml20-sp-remote.php"), "<?php\n")
  const child: ChildProcess = spawn(PHP, ["-d", `session.save_path=${dir}/sessions`, "-d", "display_errors=stderr", "-S", `127.0.0.1:${port}`, "-t", join(SSP_ROOT, "www")], {
    env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: join(dir, "config") },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const output: string[] = []
  child.stdout!.on("data", (c: Buffer) => output.push(c.toString()))
  child.stderr!.on("data", (c: Buffer) => output.push(c.toString()))
  const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      const response = await fetch(metadataUrl)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`SimpleSAMLphp did not start:\n${output.join("")}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    baseUrl,
    entityId,
    metadataUrl,
    output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r))
        child.kill("SIGTERM")
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A tiny browser: follows redirects within the IdP with its cookies (kept in `cookies`, to
 * reuse the IdP session), stops at the auto-POST form or a redirect back to the SP.
 */
export async function browseToForm(url: string, cookies = new Map<string, string>()): Promise<{ action: string; fields: Record<string, string> } | { redirect: string }> {
  let next = url
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: "manual", headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim())
    }
    const location = response.headers.get("location")
    if (location) {
      const target = new URL(location, next)
      if (target.origin !== new URL(url).origin) return { redirect: target.toString() }
      next = target.toString()
      continue
    }
    const html = await response.text()
    const form = /<form[^>]*action="([^"]+)"/i.exec(html)
    if (!form) throw new Error(`no form in the IdP's page (${response.status}):\n${html.slice(0, 2000)}`)
    const fields: Record<string, string> = {}
    for (const input of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi)) fields[input[1]!] = decodeEntities(input[2]!)
    return { action: decodeEntities(form[1]!), fields }
  }
  throw new Error("too many redirects")
}

const decodeEntities = (s: string) => s.replace(/&quot;/g, '"').replace(/&#0?39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#x2F;/gi, "/").replace(/&#x3D;/gi, "=").replace(/&#x2B;/gi, "+").replace(/&amp;/g, "&")
