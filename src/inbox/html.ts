import { escapeText } from "../cli/escape-text.js";

/** Known only to this module: no other code can make an {@link Html} out of text of its choosing. */
const BUILT_HERE = Symbol("built by html");

/**
 * A fragment of HTML that a template of the inbox built itself, safe to put in a page as it is. Only
 * {@link html} and {@link joinHtml} make one; text from run data never becomes one without escaping.
 */
export class Html {
  readonly #text: string;

  /** Use {@link html}: the key is private to this module, so a fragment made any other way throws. */
  constructor(key: symbol, text: string) {
    if (key !== BUILT_HERE) throw new TypeError("An Html fragment is made only by the html template.");
    this.#text = text;
  }

  /** The fragment's markup. */
  toString(): string {
    return this.#text;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Text made inert twice over: every character a terminal or a renderer may act on or hide (controls,
 * bidirectional overrides, zero-width characters, lone surrogates) is shown as a visible escape, as
 * the command line shows it, and then `& < > " '` become entities.
 *
 * @example escapeHtml('"><img onerror=x>\u202e') // "&quot;&gt;&lt;img onerror=x&gt;\\u202e"
 */
export function escapeHtml(text: string): string {
  return escapeText(text).replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

/** A value interpolated into a template: a fragment it built, a list of them, or text to escape. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * The inbox's one way to write HTML: a tagged template whose every interpolated value is escaped
 * ({@link escapeHtml}), except fragments this same function built (and lists of them). `null`,
 * `undefined` and `false` render as nothing, for optional parts.
 *
 * @example html`<td>${state.goal}</td>`
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) text += render(values[index]) + (strings[index + 1] ?? "");
  return new Html(BUILT_HERE, text);
}

/** Fragments joined by a separator the caller writes as markup (a line break inside a `<pre>`, say). */
export function joinHtml(parts: readonly Html[], separator: string): Html {
  return new Html(BUILT_HERE, parts.map((part) => part.toString()).join(separator));
}

/** A run id, or any value, as one segment of a URL path, escaped for the URL and then for HTML. */
export function pathSegment(value: string): string {
  return encodeURIComponent(value);
}

/** Whether a browser would resolve this path segment away (`.` and `..`, in any spelling it reads as one). */
function normalizedAway(runId: string): boolean {
  return /^(\.|%2e){1,2}$/i.test(runId);
}

/**
 * The address of a run's page: `/runs/ID`, or `/run?id=ID` for an id a browser would resolve away in
 * a path (`.`, `..`), which the query keeps as it is. Both routes take every id.
 */
export function runHref(runId: string): string {
  return normalizedAway(runId) ? `/run?id=${encodeURIComponent(runId)}` : `/runs/${pathSegment(runId)}`;
}

/** Where a run's answer form posts: `/runs/ID/answer`, or `/run/answer?id=ID` as for {@link runHref}. */
export function answerAction(runId: string): string {
  return normalizedAway(runId) ? `/run/answer?id=${encodeURIComponent(runId)}` : `/runs/${pathSegment(runId)}/answer`;
}
