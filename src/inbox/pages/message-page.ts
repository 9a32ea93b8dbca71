import { html } from "../html.js";
import type { Html } from "../html.js";
import { page } from "./layout.js";
import type { Viewer } from "./layout.js";

/**
 * A page that says why a request was refused, in an `[role=alert]` with the error's code, and a way
 * back: a stale request, an approver the policy refuses, a forged form, a run that does not exist.
 */
export function messagePage(options: {
  title: string;
  code: string;
  message: string;
  viewer?: Viewer;
  back?: { href: string; label: string };
}): Html {
  const back = options.back ?? { href: "/", label: "Back to the runs" };
  return page({
    title: options.title,
    ...(options.viewer === undefined ? {} : { viewer: options.viewer }),
    main: html`<section class="card">
      <h1>${options.title}</h1>
      <div role="alert" class="alert">
        <p>${options.message}</p>
        <p class="code">Code: <code>${options.code}</code></p>
      </div>
      <p><a href="${back.href}">${back.label}</a></p>
    </section>`,
  });
}
