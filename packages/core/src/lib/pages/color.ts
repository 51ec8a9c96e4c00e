/**
 * Validation of the colours a theme or a provider style may set.
 *
 * Colours end up inside CSS, where HTML escaping is no protection (a value such as
 * `red;background:url(//x)` is harmless HTML but hostile CSS). So a colour is accepted
 * only when it matches a small grammar of plain colour values; anything else is dropped.
 * @module
 */

// The CSS named colours (CSS Color 4), plus `transparent`. Lower-case; input is lowered.
const NAMED_COLORS = new Set(
  (
    "aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue " +
    "blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk " +
    "crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki " +
    "darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen " +
    "darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue " +
    "dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite " +
    "gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki " +
    "lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan " +
    "lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen " +
    "lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen " +
    "magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen " +
    "mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream " +
    "mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid " +
    "palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum " +
    "powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown " +
    "seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen " +
    "steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow " +
    "yellowgreen transparent"
  ).split(" "),
)

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i
// Arguments may only be numbers, units used by these functions, `none`, separators and
// signs: no quotes, semicolons, braces or nested functions (so no `url()`).
const FUNCTIONAL = /^(?:rgba?|hsla?)\((?:\s|[0-9.,/%+-]|e|deg|grad|rad|turn|none)*\)$/i

/**
 * Returns the colour, trimmed, if it is a hex colour, `rgb()`/`rgba()`, `hsl()`/`hsla()`
 * or a named colour; otherwise `undefined`.
 */
export function cssColor(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined
  const color = value.trim()
  // Real colours are short; the cap keeps the regex cheap on hostile input.
  if (color.length === 0 || color.length > 64) return undefined
  if (HEX.test(color) || FUNCTIONAL.test(color)) return color
  const lower = color.toLowerCase()
  return NAMED_COLORS.has(lower) ? lower : undefined
}

/**
 * For a hex colour, a text colour (near-black or white) that reads well on it, by
 * relative luminance. `undefined` for other notations: guessing there could pick
 * an unreadable pair, and the caller then falls back to its own default.
 */
export function readableTextOn(background: string): string | undefined {
  if (!HEX.test(background)) return undefined
  let hex = background.slice(1)
  if (hex.length <= 4) hex = [...hex].map((c) => c + c).join("")
  const channel = (i: number): number => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
  // 0.179 is where contrast against black equals contrast against white.
  return luminance > 0.179 ? "#111318" : "#ffffff"
}
