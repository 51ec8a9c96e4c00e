/**
 * The script of the built-in sign-in page's passkey forms. The page inlines it after the
 * `@simplewebauthn/browser` bundle (the page CSP allows inline scripts and nothing from
 * other origins). It reads each form's `data-options-url`, fetches options (with
 * `action=register` when the sign-up button was pressed), runs the
 * ceremony, then submits the form with hidden `action` and `data` fields, so the
 * redirect after sign-in is an ordinary form post. Written as ES2020 for every current
 * browser; kept free of the sequence that would close a `<script>` element.
 * @module
 */
import { SIMPLEWEBAUTHN_BROWSER_UMD } from "./browser-bundle.generated.js"
import { en } from "../i18n/catalogs/en.js"

const FORM_SCRIPT = `(() => {
  "use strict";
  const lib = window.SimpleWebAuthnBrowser;
  const forms = Array.from(document.querySelectorAll("form[data-webauthn-provider][data-options-url]"));
  let autofillStarted = false;
  // One ceremony ends the page: once the user has started one, a late autofill ceremony must
  // not start (its options may arrive after a passkey was just registered, and the device
  // would answer it at once), and a second form post must never abort the first.
  let userStarted = false;
  let submitted = false;

  // The page's sentences, in the page's language, from the form's data-messages.
  const DEFAULT_TEXT = ${JSON.stringify(en.passkey)};
  function textOf(form) {
    try {
      return Object.assign({}, DEFAULT_TEXT, JSON.parse(form.dataset.messages || "{}"));
    } catch (_) {
      return DEFAULT_TEXT;
    }
  }

  const userInputs = (form) => Array.from(form.querySelectorAll("input")).filter((i) => i.type !== "hidden" && i.name);

  function say(form, text) {
    let box = form.querySelector("[data-webauthn-status]");
    if (!box) {
      box = document.createElement("p");
      box.setAttribute("data-webauthn-status", "");
      box.setAttribute("role", "alert");
      box.className = "alert";
      form.prepend(box);
    }
    box.textContent = text;
    box.hidden = !text;
  }

  async function fetchOptions(form, action) {
    const url = new URL(form.dataset.optionsUrl, window.location.href);
    if (action) url.searchParams.set("action", action);
    for (const input of userInputs(form)) if (input.value) url.searchParams.set(input.name, input.value);
    const res = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!res.ok) throw Object.assign(new Error("options"), { name: "OptionsRefused" });
    return res.json();
  }

  function submit(form, action, response) {
    if (submitted) return;
    submitted = true;
    for (const [name, value] of [["action", action], ["data", JSON.stringify(response)]]) {
      let input = form.querySelector('input[type="hidden"][name="' + name + '"]');
      if (!input) {
        input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        form.append(input);
      }
      input.value = value;
    }
    // The prototype's submit: an input named "submit" cannot shadow it.
    HTMLFormElement.prototype.submit.call(form);
  }

  async function ceremony(form, action, autofill) {
    const { action: chosen, options } = await fetchOptions(form, action);
    if (autofill && userStarted) return;
    const response = chosen === "register"
      ? await lib.startRegistration({ optionsJSON: options })
      : await lib.startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill });
    if (autofill && userStarted) return;
    submit(form, chosen, response);
  }

  function explain(form, error) {
    const text = textOf(form);
    if (error && error.name === "NotAllowedError") return text.cancelled;
    if (error && error.name === "OptionsRefused") return text.optionsRefused;
    if (error && error.name === "InvalidStateError") return text.alreadyRegistered;
    return text.failed;
  }

  // Back from the next page through the back/forward cache: the page may be used again.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) userStarted = submitted = false;
  });

  for (const form of forms) {
    if (!lib || !lib.browserSupportsWebAuthn()) {
      say(form, textOf(form).unsupported);
      for (const el of form.querySelectorAll("input, button")) el.disabled = true;
      continue;
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (submitted) return;
      userStarted = true;
      say(form, "");
      // The sign-up button asks for a registration; the other lets the server choose (a
      // passkey sign-in, or adding one when signed in). A form submitted without a button
      // (Enter in the email field) is the sign-in.
      const button = event.submitter;
      const action = button && button.name === "action" && button.value === "register" ? "register" : undefined;
      ceremony(form, action, false).catch((error) => say(form, explain(form, error)));
    });
    // Conditional UI: passkeys offered in the email field's autofill, for one form only.
    if (form.hasAttribute("data-conditional-ui") && !autofillStarted) {
      autofillStarted = true;
      lib.browserSupportsWebAuthnAutofill()
        .then((supported) => supported && ceremony(form, "authenticate", true))
        // Aborted when the user submits the form instead, or dismissed: nothing to say.
        .catch(() => {});
    }
  }
})();`

/** Both scripts, bundle first, ready to go into `<script>` elements. */
export const webauthnPageScripts: readonly string[] = [SIMPLEWEBAUTHN_BROWSER_UMD, FORM_SCRIPT].map(guardScriptText)

/**
 * A script's text may not contain `</script` or `<!--` (the HTML parser would end the
 * element early). Neither occurs in our code; in the vendored bundle `</` may only appear
 * inside string or regex literals, where `<\/` means the same.
 */
function guardScriptText(code: string): string {
  return code.replace(/<\//g, "<\\/").replace(/<!--/g, "<\\!--")
}
