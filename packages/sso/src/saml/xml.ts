/**
 * What is checked on the raw XML before any signature library sees it: size, encoding,
 * no DTD at all (external entities and entity expansion are refused, not tamed), and the
 * algorithm policy. Parsing is @xmldom/xmldom's with every error fatal.
 * @module
 */
import { DOMParser } from "@xmldom/xmldom"
import { SamlRejected } from "./errors.js"

export const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#"
export const SAMLP_NS = "urn:oasis:names:tc:SAML:2.0:protocol"
export const SAML_NS = "urn:oasis:names:tc:SAML:2.0:assertion"
export const XMLENC_NS = "http://www.w3.org/2001/04/xmlenc#"
export const MD_NS = "urn:oasis:names:tc:SAML:2.0:metadata"

/** 256 KiB of base64: real responses are a few KiB, and the cap bounds parsing and signature work. */
export const MAX_BASE64_LENGTH = 256 * 1024

const BASE64 = /^[A-Za-z0-9+/\r\n\t ]*={0,2}[\r\n\t ]*$/

/** Decodes the `SAMLResponse` form field: a string of well-formed base64 of UTF-8, within the size cap. */
export function decodeSamlMessage(value: unknown): string {
  if (typeof value !== "string" || value.length === 0) throw new SamlRejected("saml-malformed", "The SAML response is missing")
  if (value.length > MAX_BASE64_LENGTH) throw new SamlRejected("saml-too-large", "The SAML response is too large")
  if (!BASE64.test(value)) throw new SamlRejected("saml-malformed", "The SAML response is not base64")
  const bytes = Buffer.from(value, "base64")
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    throw new SamlRejected("saml-malformed", "The SAML response is not UTF-8")
  }
}

/**
 * Parses XML that must carry no document type declaration. The textual check comes first so
 * no parser ever reads an entity declaration; the DOM check after it catches a declaration
 * spelled in a way the text check did not foresee.
 */
export function parseStrictXml(xml: string): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlRejected("saml-doctype", "XML with a document type declaration is refused")
  let failed = false
  const fail = () => { failed = true }
  let doc: Document
  try {
    doc = new DOMParser({ locator: {}, errorHandler: { warning: () => {}, error: fail, fatalError: fail } }).parseFromString(xml, "text/xml")
  } catch {
    throw new SamlRejected("saml-malformed", "The XML is not well-formed")
  }
  if (failed || !doc?.documentElement) throw new SamlRejected("saml-malformed", "The XML is not well-formed")
  if (doc.doctype) throw new SamlRejected("saml-doctype", "XML with a document type declaration is refused")
  return doc
}

const SIGNATURE_ALGORITHMS = new Set([
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512",
  "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256",
  "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384",
  "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512",
])
const DIGEST_ALGORITHMS = new Set([
  "http://www.w3.org/2001/04/xmlenc#sha256",
  "http://www.w3.org/2001/04/xmldsig-more#sha384",
  "http://www.w3.org/2001/04/xmlenc#sha512",
])
const SHA1_SIGNATURE = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"

/** The HTTP-Redirect binding signs with RSA only here (node-saml verifies redirect signatures with RSA hashes). */
const REDIRECT_SIGNATURE_ALGORITHMS = new Set([
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512",
])

/** The algorithm policy for an HTTP-Redirect message's `SigAlg`. */
export function checkRedirectAlgorithm(sigAlg: string, allowSha1: boolean): void {
  if (!(REDIRECT_SIGNATURE_ALGORITHMS.has(sigAlg) || (allowSha1 && sigAlg === SHA1_SIGNATURE))) {
    throw new SamlRejected("saml-weak-algorithm", "The message is signed with an algorithm this service provider does not accept")
  }
}
const SHA1_DIGEST = "http://www.w3.org/2000/09/xmldsig#sha1"
/** Content and key-transport encryption: AES (CBC or GCM) and RSA-OAEP; RSA PKCS#1 v1.5 and 3DES are refused (padding oracles). */
const ENCRYPTION_ALGORITHMS = new Set([
  "http://www.w3.org/2001/04/xmlenc#aes128-cbc",
  "http://www.w3.org/2001/04/xmlenc#aes192-cbc",
  "http://www.w3.org/2001/04/xmlenc#aes256-cbc",
  "http://www.w3.org/2009/xmlenc11#aes128-gcm",
  "http://www.w3.org/2009/xmlenc11#aes192-gcm",
  "http://www.w3.org/2009/xmlenc11#aes256-gcm",
  "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
  "http://www.w3.org/2009/xmlenc11#rsa-oaep",
])

function elementsByLocalName(doc: Document | Element, localName: string): Element[] {
  return Array.from(doc.getElementsByTagName("*")).filter((e) => e.localName === localName)
}

/**
 * The algorithm policy: every `SignatureMethod` and `DigestMethod` in the message (whatever its
 * namespace — a decoy in another namespace is refused too) must be SHA-256 or stronger, RSA or
 * ECDSA; SHA-1 only when the connection allows it. An algorithm not on the list (HMAC, `none`,
 * anything unknown) is refused rather than left to the verifier's defaults.
 */
export function checkAlgorithms(doc: Document | Element, allowSha1: boolean): void {
  for (const el of elementsByLocalName(doc, "SignatureMethod")) {
    const alg = el.getAttribute("Algorithm") ?? ""
    if (!(SIGNATURE_ALGORITHMS.has(alg) || (allowSha1 && alg === SHA1_SIGNATURE))) {
      throw new SamlRejected("saml-weak-algorithm", "The response is signed with an algorithm this service provider does not accept")
    }
  }
  for (const el of elementsByLocalName(doc, "DigestMethod")) {
    const alg = el.getAttribute("Algorithm") ?? ""
    if (el.parentNode && (el.parentNode as Element).localName === "EncryptionMethod") continue // RSA-OAEP's digest, judged with the key transport
    if (!(DIGEST_ALGORITHMS.has(alg) || (allowSha1 && alg === SHA1_DIGEST))) {
      throw new SamlRejected("saml-weak-algorithm", "The response is digested with an algorithm this service provider does not accept")
    }
  }
  for (const el of elementsByLocalName(doc, "EncryptionMethod")) {
    if (!ENCRYPTION_ALGORITHMS.has(el.getAttribute("Algorithm") ?? "")) {
      throw new SamlRejected("saml-weak-algorithm", "The assertion is encrypted with an algorithm this service provider does not accept")
    }
  }
}

/** The element children of `parent` named `localName` in namespace `ns`. */
export function children(parent: Element, ns: string, localName: string): Element[] {
  return Array.from(parent.childNodes).filter((n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === localName)
}

/** Every element named `localName` in namespace `ns` under `root`, at any depth. */
export function descendants(root: Document | Element, ns: string, localName: string): Element[] {
  return Array.from(root.getElementsByTagNameNS(ns, localName))
}
