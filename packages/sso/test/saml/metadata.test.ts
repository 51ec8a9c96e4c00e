import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SamlRejected, fetchIdpMetadata, generateSpKey, parseIdpMetadata } from "../../src/saml/index.js"
import { testClock, testIdp, world } from "./idp-fixture.js"

const clock = testClock()
const idp = testIdp("https://idp.acme.test/metadata", clock)
const next = testIdp("https://idp.acme.test/metadata", clock)
const encryption = generateSpKey()

const keyDescriptor = (use: string | null, cert: string) =>
  `<md:KeyDescriptor${use ? ` use="${use}"` : ""}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\n${cert.replace(/(.{64})/g, "$1\n")}\n</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
const metadataXml = (o: { slo?: boolean; certs?: string } = {}) =>
  `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.acme.test/metadata">` +
  `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
  (o.certs ?? keyDescriptor("signing", idp.certificate) + keyDescriptor(null, next.certificate) + keyDescriptor("encryption", encryption.certificate.replace(/-----[^-]+-----|\s/g, ""))) +
  (o.slo ? `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.acme.test/slo"/>` : "") +
  `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.acme.test/sso-post"/>` +
  `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.acme.test/sso"/>` +
  `</md:IDPSSODescriptor></md:EntityDescriptor>`

describe("parseIdpMetadata", () => {
  it("reads the entity ID, the HTTP-Redirect endpoints and every signing certificate (rollover), not the encryption one", () => {
    expect(parseIdpMetadata(metadataXml({ slo: true }))).toEqual({
      idpEntityId: "https://idp.acme.test/metadata",
      ssoUrl: "https://idp.acme.test/sso",
      sloUrl: "https://idp.acme.test/slo",
      certificates: [idp.certificate, next.certificate],
    })
  })

  it("leaves sloUrl out when the IdP has no HTTP-Redirect logout", () => {
    expect(parseIdpMetadata(metadataXml())).not.toHaveProperty("sloUrl")
  })

  it("gives certificates a connection can verify with", async () => {
    const parsed = parseIdpMetadata(metadataXml())
    const w = world({ idpKey: next.key, connection: { certificates: parsed.certificates } })
    const requestId = await w.start()
    expect((await w.sp.completeSignIn({ SAMLResponse: w.signedResponse(requestId), RelayState: "state-1" })).requestId).toBe(requestId)
  })

  it.each([
    ["a DOCTYPE", `<!DOCTYPE x>` + metadataXml()],
    ["no IdP", `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><md:SPSSODescriptor/></md:EntityDescriptor>`],
    ["no signing certificate", metadataXml({ certs: keyDescriptor("encryption", idp.certificate) })],
    ["a certificate that does not parse", metadataXml({ certs: keyDescriptor("signing", "bm90IGEgY2VydGlmaWNhdGU=") })],
    ["two IdPs", `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${metadataXml().replace(/^<\?xml[^>]*>/, "").repeat(2)}</md:EntitiesDescriptor>`],
    ["not XML", "<md:EntityDescriptor"],
  ])("refuses metadata with %s", (_, xml) => {
    expect(() => parseIdpMetadata(xml)).toThrow(SamlRejected)
  })
})

describe("fetchIdpMetadata", () => {
  let server: Server
  let base: string
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/metadata") return res.end(metadataXml())
      if (req.url === "/redirect") return res.writeHead(302, { location: "/metadata" }).end()
      if (req.url === "/huge") {
        res.writeHead(200, { "content-type": "application/xml" })
        res.write("<x>")
        for (let i = 0; i < 64; i++) res.write("a".repeat(32 * 1024))
        return res.end("</x>")
      }
      if (req.url === "/slow") return setTimeout(() => res.end(metadataXml()), 2000)
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))

  it("fetches and parses metadata from a loopback test IdP", async () => {
    expect((await fetchIdpMetadata(`${base}/metadata`, fetch, { allowLoopbackHttp: true })).idpEntityId).toBe("https://idp.acme.test/metadata")
  })

  it("does not follow a redirect", async () => {
    await expect(fetchIdpMetadata(`${base}/redirect`, fetch, { allowLoopbackHttp: true })).rejects.toThrow(/redirect/)
  })

  it("stops reading past maxBytes", async () => {
    await expect(fetchIdpMetadata(`${base}/huge`, fetch, { allowLoopbackHttp: true, maxBytes: 256 * 1024 })).rejects.toThrow(/too large/)
  })

  it("gives up after timeoutMs", async () => {
    const started = Date.now()
    await expect(fetchIdpMetadata(`${base}/slow`, fetch, { allowLoopbackHttp: true, timeoutMs: 200 })).rejects.toThrow(/in time/)
    expect(Date.now() - started).toBeLessThan(1500)
  })

  it("refuses plain HTTP to loopback when not allowed (production)", async () => {
    let called = false
    const spy: typeof fetch = async (...args) => { called = true; return fetch(...args) }
    await expect(fetchIdpMetadata(`${base}/metadata`, spy, { allowLoopbackHttp: false })).rejects.toThrow(/https/)
    expect(called).toBe(false)
  })

  it("refuses plain HTTP to any other host without asking the network", async () => {
    let called = false
    const spy: typeof fetch = async () => { called = true; throw new Error("no") }
    await expect(fetchIdpMetadata("http://idp.acme.test/metadata", spy, { allowLoopbackHttp: true })).rejects.toThrow(SamlRejected)
    expect(called).toBe(false)
  })
})

describe("generateSpKey", () => {
  it("gives an RSA-2048 key and a self-signed certificate of its public key", () => {
    const key = generateSpKey({ commonName: "acme sp", years: 2 })
    const cert = new X509Certificate(key.certificate)
    const privateKey = createPrivateKey(key.privateKey)
    expect(privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048)
    expect(cert.checkPrivateKey(privateKey)).toBe(true)
    expect(cert.verify(createPublicKey(key.privateKey))).toBe(true)
    expect(cert.subject).toBe("CN=acme sp")
    expect(new Date(cert.validTo).getUTCFullYear() - new Date(cert.validFrom).getUTCFullYear()).toBe(2)
  })

  it("gives a new key every time", () => {
    expect(generateSpKey().privateKey).not.toBe(generateSpKey().privateKey)
  })
})
