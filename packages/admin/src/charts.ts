/**
 * Bar charts drawn on the server as SVG: `role="img"` with a `<title>` and `<desc>` (what
 * a screen reader announces), and every chart followed by its data as a table, so nothing
 * is only in the picture. Colours are the theme's custom properties (light and dark alike).
 * @module
 */
import { html, raw, type SafeHtml } from "@portcullis/core/extension"

/** One bar: its label (a day) and value. */
export interface Bar {
  label: string
  value: number
}

const WIDTH = 640
const HEIGHT = 180
const PAD = { top: 12, right: 8, bottom: 28, left: 36 }

/** A bar chart of `bars`; `id` makes the title and description addressable (unique per page). */
export function barChart(id: string, title: string, desc: string, bars: readonly Bar[], tone: "brand" | "alert"): SafeHtml {
  const max = Math.max(1, ...bars.map((b) => b.value))
  const plotW = WIDTH - PAD.left - PAD.right
  const plotH = HEIGHT - PAD.top - PAD.bottom
  const step = bars.length ? plotW / bars.length : plotW
  const barW = Math.max(2, step * 0.7)
  const shapes = bars
    .map((bar, i) => {
      const h = (bar.value / max) * plotH
      const x = PAD.left + i * step + (step - barW) / 2
      const y = PAD.top + plotH - h
      // Numbers only: every value here is computed, never input.
      return `<rect class="pc-bar-${tone}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"></rect>`
    })
    .join("")
  const every = Math.max(1, Math.ceil(bars.length / 7))
  const labels = bars.filter((_, i) => i % every === 0).map((bar) => ({ bar, i: bars.indexOf(bar) }))
  return html`<svg class="pc-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" focusable="false">
<title id="${`${id}-title`}">${title}</title>
<desc id="${`${id}-desc`}">${desc}</desc>
<line class="pc-axis" x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}"></line>
<text class="pc-axis-label" x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end">${max}</text>
<text class="pc-axis-label" x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end">0</text>
${raw(shapes)}
${labels.map(({ bar, i }) => html`<text class="pc-axis-label" x="${(PAD.left + i * step + step / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${bar.label.slice(5)}</text>`)}
</svg>`
}

/** The chart's data as a table: a row per day, a column per series. */
export function dataTable(caption: string, headers: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): SafeHtml {
  return html`<table class="pc-table"><caption>${caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${row.map((cell, i) => (i === 0 ? html`<th scope="row">${cell}</th>` : html`<td>${cell}</td>`))}</tr>`)}</tbody>
</table>`
}
