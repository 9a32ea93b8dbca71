import { html } from "../html.js";
import type { Html } from "../html.js";
import { page } from "./layout.js";

/** The sign-in page: one password field for the token `leash approvers add NAME` printed. */
export function signInPage(failure?: string): Html {
  const alert = failure === undefined ? null : html`<div role="alert" class="alert"><p>${failure}</p></div>`;
  return page({
    title: "Sign in",
    main: html`<section class="card narrow">
      <h1>Sign in</h1>
      <p>Paste the approver token that <code>leash approvers add NAME</code> printed for you.</p>
      ${alert}
      <form method="post" action="/signin" class="stack">
        <label for="token">Approver token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required spellcheck="false" />
        <button type="submit" class="primary">Sign in</button>
      </form>
    </section>`,
  });
}
