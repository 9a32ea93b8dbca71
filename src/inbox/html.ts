import { escapeOne, jsonEscape, UNSAFE_IN_JSON, UNSAFE_TEXT } from "../operate/escape-text.js";

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

function entities(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

/**
 * Text made inert twice over: every character a terminal or a renderer may act on or hide (controls,
 * bidirectional overrides, zero-width and other default-ignorable characters, the blank Braille
 * pattern, lone surrogates) is shown as a visible escape, as the command line shows it, wrapped in
 * `<span class="ctl">` (styled apart, so that the text `\u202e` typed by a model never looks like an
 * escaped character); then `& < > " '` become entities.
 *
 * @example escapeHtml('"><img onerror=x>\u202e') // '&quot;&gt;&lt;img onerror=x&gt;<span class="ctl">\\u202e</span>'
 */
export function escapeHtml(text: string): string {
  UNSAFE_TEXT.lastIndex = 0;
  let out = "";
  let last = 0;
  for (const match of text.matchAll(UNSAFE_TEXT)) {
    out += `${entities(text.slice(last, match.index))}<span class="ctl">${entities(escapeOne(match[0]))}</span>`;
    last = match.index + match[0].length;
  }
  return out + entities(text.slice(last));
}

/**
 * Text for an attribute's value: the same escapes, without the markup (an attribute holds no elements).
 */
function escapeAttribute(text: string): string {
  return entities(text.replace(UNSAFE_TEXT, escapeOne));
}

/** A value interpolated into a template: a fragment it built, a list of them, or text to escape. */
type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue, inAttribute: boolean): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map((item) => render(item, inAttribute)).join("");
  if (value === null || value === undefined || value === false) return "";
  return inAttribute ? escapeAttribute(String(value)) : escapeHtml(String(value));
}

/** Whether the template text before a value opens an attribute's quoted value (`name="`). */
function opensAttribute(before: string): boolean {
  return /=\s*["'][^"']*$/.test(before);
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
  for (let index = 0; index < values.length; index++)
    text += render(values[index], opensAttribute(strings[index] ?? "")) + (strings[index + 1] ?? "");
  return new Html(BUILT_HERE, text);
}

/** Fragments joined by a separator the caller writes as markup (a line break inside a `<pre>`, say). */
export function joinHtml(parts: readonly Html[], separator: string): Html {
  return new Html(BUILT_HERE, parts.map((part) => part.toString()).join(separator));
}

/** A run id, or any value, as one segment of a URL path, escaped for the URL and then for HTML. */
function pathSegment(value: string): string {
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

/**
 * One line of JSON text (from `JSON.stringify`) as markup: each character a terminal or a renderer may
 * act on or hide is written as its JSON escape (`\u202e`: the same value) in `<span class="ctl">`.
 */
export function jsonLineHtml(line: string): Html {
  UNSAFE_IN_JSON.lastIndex = 0;
  let out = "";
  let last = 0;
  for (const match of line.matchAll(UNSAFE_IN_JSON)) {
    out += `${entities(line.slice(last, match.index))}<span class="ctl">${entities(jsonEscape(match[0]))}</span>`;
    last = match.index + match[0].length;
  }
  return new Html(BUILT_HERE, out + entities(line.slice(last)));
}
