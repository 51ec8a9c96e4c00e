import { component$ } from "@builder.io/qwik"
import { QwikCityProvider, RouterOutlet } from "@builder.io/qwik-city"

export default component$(() => (
  <QwikCityProvider>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>Portcullis · Qwik City</title>
    </head>
    <body lang="en">
      <RouterOutlet />
    </body>
  </QwikCityProvider>
))
