/**
 * Turns a {@link Theme} or a provider's {@link ProviderStyle} into the class names and
 * CSS custom properties the stylesheet reads.
 * @module
 */
import type { ProviderStyle } from "../../providers/oauth.js"
import type { Theme } from "../../base-types.js"
import { cssColor, readableTextOn } from "./color.js"

/** What the document shell needs from the theme. */
export interface ResolvedTheme {
  /** Class for `<html>`: selects the palette. */
  className: "pc-auto" | "pc-light" | "pc-dark"
  /** Content of `<meta name="color-scheme">`, so form controls match before CSS loads. */
  colorScheme: "light dark" | "light" | "dark"
  /** Custom properties for the `<html>` `style` attribute; `""` when the theme sets none. */
  style: string
}

/** Reads the theme, ignoring colours that fail validation. */
export function resolveTheme(theme: Theme | undefined): ResolvedTheme {
  const scheme = theme?.colorScheme === "light" || theme?.colorScheme === "dark" ? theme.colorScheme : "auto"
  const brand = cssColor(theme?.brandColor)
  // Without an explicit button text colour, a custom brand gets a readable one computed
  // from it when possible: the palette default was chosen for the default brand only.
  const buttonText = cssColor(theme?.buttonText) ?? (brand ? (readableTextOn(brand) ?? "#ffffff") : undefined)
  return {
    className: `pc-${scheme}`,
    colorScheme: scheme === "auto" ? "light dark" : scheme,
    style: declarations({ "--pc-brand-theme": brand, "--pc-button-text-theme": buttonText }),
  }
}

/**
 * Custom properties for one provider button. A background without a text colour is only
 * used when a readable text colour can be derived, so a dark `bg` never meets the
 * palette's dark text.
 */
export function providerButtonStyle(style: ProviderStyle | undefined): string {
  let bg = cssColor(style?.bg)
  let text = cssColor(style?.text)
  if (bg && !text) {
    text = readableTextOn(bg)
    if (!text) bg = undefined
  }
  // Likewise a lone text colour could vanish on the palette surface, so it needs a bg.
  if (text && !bg) text = undefined
  return declarations({
    "--pc-provider-bg": bg,
    "--pc-provider-text": text,
    "--pc-provider-accent": cssColor(style?.brandColor),
  })
}

function declarations(props: Record<string, string | undefined>): string {
  return Object.entries(props)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}:${value}`)
    .join(";")
}
