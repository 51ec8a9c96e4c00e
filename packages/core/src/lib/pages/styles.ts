/**
 * The stylesheet of the built-in pages, inlined into each page so they need no extra
 * route and no asset pipeline.
 *
 * Colours are custom properties. The palette comes from the `<html>` class
 * (`pc-light`, `pc-dark`, or `pc-auto`, which follows `prefers-color-scheme`); the theme
 * and provider colours arrive as `--pc-brand-theme`, `--pc-provider-*` in `style`
 * attributes (see `theme.ts`), already validated.
 * @module
 */

// Written once and used twice, for `.pc-dark` and for `.pc-auto` under a dark preference.
const LIGHT = `
  --pc-page: #f3f4f6;
  --pc-surface: #ffffff;
  --pc-text: #1b1e24;
  --pc-muted: #555c69;
  --pc-border: #cfd4dc;
  --pc-field: #ffffff;
  --pc-focus: #1d5fd6;
  --pc-brand-default: #2f4fd1;
  --pc-button-text-default: #ffffff;
  --pc-alert-bg: #fdeeee;
  --pc-alert-border: #eeb4b4;
  --pc-alert-text: #86191b;
  --pc-shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 8px 24px rgb(16 24 40 / 8%);`

const DARK = `
  --pc-page: #111318;
  --pc-surface: #1c1f26;
  --pc-text: #eceef3;
  --pc-muted: #a6adba;
  --pc-border: #3a404c;
  --pc-field: #14161b;
  --pc-focus: #8fb3ff;
  --pc-brand-default: #8ea4ff;
  --pc-button-text-default: #0f1320;
  --pc-alert-bg: #3b1c20;
  --pc-alert-border: #74323a;
  --pc-alert-text: #ffd0d0;
  --pc-shadow: 0 1px 2px rgb(0 0 0 / 40%), 0 8px 24px rgb(0 0 0 / 35%);`

/** The complete stylesheet. A constant: nothing from input is ever concatenated in. */
export const STYLESHEET = `
:root {${LIGHT}
  --pc-brand: var(--pc-brand-theme, var(--pc-brand-default));
  --pc-button-text: var(--pc-button-text-theme, var(--pc-button-text-default));
  --pc-radius: 0.5rem;
}
html.pc-light { color-scheme: light; }
html.pc-dark { color-scheme: dark;${DARK} }
html.pc-auto { color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  html.pc-auto {${DARK} }
}
*, *::before, *::after { box-sizing: border-box; }
/* The forms are flex boxes; without this the hidden second step would still show. */
[hidden] { display: none !important; }
body {
  margin: 0;
  min-height: 100vh;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  padding: 2rem 1rem;
  background: var(--pc-page);
  color: var(--pc-text);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.logo {
  display: block;
  max-width: 10rem;
  max-height: 4.5rem;
  margin: 0 auto 1.5rem;
  object-fit: contain;
}
.card {
  width: 100%;
  max-width: 24rem;
  padding: 2rem;
  background: var(--pc-surface);
  border: 1px solid var(--pc-border);
  border-radius: calc(var(--pc-radius) * 1.5);
  box-shadow: var(--pc-shadow);
}
h1 {
  margin: 0 0 1.25rem;
  font-size: 1.375rem;
  line-height: 1.3;
  text-align: center;
}
p { margin: 0 0 1rem; }
.muted { color: var(--pc-muted); }
.center { text-align: center; }
a {
  /* Mixing the brand with the text colour keeps links readable whatever brand is set. */
  color: var(--pc-brand);
  color: color-mix(in srgb, var(--pc-brand) 70%, var(--pc-text));
  text-underline-offset: 0.15em;
}
form { margin: 0; display: flex; flex-direction: column; gap: 0.75rem; }
.field { display: flex; flex-direction: column; gap: 0.3rem; }
label { font-size: 0.9rem; font-weight: 600; }
input {
  width: 100%;
  padding: 0.6rem 0.75rem;
  font: inherit;
  color: var(--pc-text);
  background: var(--pc-field);
  border: 1px solid var(--pc-border);
  border-radius: var(--pc-radius);
}
input::placeholder { color: var(--pc-muted); opacity: 1; }
button, .button {
  display: flex;
  align-items: center;
  justify-content: center;
  gap: 0.6rem;
  width: 100%;
  min-height: 2.75rem;
  padding: 0.6rem 1rem;
  font: inherit;
  font-weight: 600;
  text-decoration: none;
  cursor: pointer;
  color: var(--pc-button-text);
  background: var(--pc-brand);
  border: 1px solid transparent;
  border-radius: var(--pc-radius);
}
button:hover, .button:hover { filter: brightness(1.08); }
.provider-button {
  color: var(--pc-provider-text, var(--pc-text));
  background: var(--pc-provider-bg, var(--pc-surface));
  border-color: var(--pc-provider-accent, var(--pc-border));
}
.provider-button img { width: 1.25rem; height: 1.25rem; flex: none; }
.provider-list { display: flex; flex-direction: column; gap: 0.75rem; }
/* A fixed, high-contrast ring rather than the brand colour, which may be too faint. */
:focus-visible { outline: 3px solid var(--pc-focus); outline-offset: 2px; }
input:focus-visible { outline-offset: 0; border-color: var(--pc-focus); }
.divider {
  display: flex;
  align-items: center;
  gap: 0.75rem;
  margin: 1.25rem 0;
  color: var(--pc-muted);
  font-size: 0.875rem;
}
.divider::before, .divider::after {
  content: "";
  flex: 1;
  border-top: 1px solid var(--pc-border);
}
.alert {
  margin: 0 0 1.25rem;
  padding: 0.75rem 1rem;
  color: var(--pc-alert-text);
  background: var(--pc-alert-bg);
  border: 1px solid var(--pc-alert-border);
  border-radius: var(--pc-radius);
}
.alert p { margin: 0; }
.code { font-size: 0.875rem; }
.methods { display: flex; flex-direction: column; }
.identity { text-align: center; overflow-wrap: anywhere; }
.actions { margin-top: 1.5rem; }
@media (max-width: 30rem) {
  body { padding: 1rem 0.75rem; justify-content: flex-start; }
  .card { padding: 1.5rem 1.25rem; }
}
@media (forced-colors: active) {
  button, .button, .provider-button { border: 1px solid ButtonText; }
}
`
