/**
 * The inbox's only script, served as `/assets/inbox.js` (the content security policy allows no other):
 * it listens to the page's event stream and, on a `change`, fetches the page again and swaps in its
 * `<main>`, unless the person is writing a note (then it only says the run changed, with a link), or
 * the answer form is shown and the run now waits on another request, or on none while this one had no
 * answer: then it keeps the request on the page with its buttons disabled and says so, with a button
 * that shows the new one. A different request never lands under the person's pointer unasked.
 */
export const INBOX_JS = `"use strict";
(function () {
  var main = document.querySelector("main");
  var source = main && main.getAttribute("data-events");
  if (!main || !source || typeof EventSource === "undefined") return;
  var refreshing = false;
  var again = false;
  var held = null;
  function busy() {
    var note = document.querySelector("textarea[name=note]");
    return !!note && (document.activeElement === note || note.value.trim() !== "");
  }
  function digestOf(root) {
    var section = root.querySelector("section[data-field=pending]");
    return section ? section.getAttribute("data-digest") : null;
  }
  // The answer form is shown and the fresh page waits on another request (or on none): swapping it in
  // would move a different request under the person's pointer.
  // A request that was answered already and is gone from the fresh page was acted on (the run resumed):
  // that page is swapped in, as any other change.
  function requestChanged(fresh) {
    if (!main.querySelector("form#answer")) return false;
    var now = digestOf(fresh);
    if (now === digestOf(main)) return false;
    return now !== null || !main.querySelector("section[data-field=pending] ul.answers li");
  }
  function swapIn(fresh, title) {
    held = null;
    var nodes = [];
    fresh.childNodes.forEach(function (node) { nodes.push(document.importNode(node, true)); });
    main.replaceChildren.apply(main, nodes);
    document.title = title;
    main.setAttribute("data-refreshed", String(Number(main.getAttribute("data-refreshed") || "0") + 1));
  }
  // Keeps the request the person was reading, its buttons disabled, and says it changed, with a button
  // that shows the new one: nothing new is answered without that extra step.
  function hold(fresh, title) {
    held = { fresh: fresh, title: title };
    main.querySelectorAll("form#answer button, form#answer textarea").forEach(function (control) {
      control.disabled = true;
    });
    var form = main.querySelector("form#answer");
    if (form) form.setAttribute("data-held", "true");
    var notice = statusNotice("request-changed", "div");
    if (!notice) return;
    var text = document.createElement("p");
    text.textContent = "This request changed since you opened it \u2014 review the new one";
    var button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.id = "show-new-request";
    button.textContent = "Show the new request";
    button.addEventListener("click", function () {
      if (held) swapIn(held.fresh, held.title);
    });
    notice.appendChild(text);
    notice.appendChild(button);
  }
  function showChanged() {
    var notice = statusNotice("changed", "p");
    if (!notice) return;
    var link = document.createElement("a");
    link.href = location.href;
    link.textContent = "This run changed \\u2014 refresh";
    notice.appendChild(link);
  }
  // A notice at the top of <main>, once: null when one with that id is already shown.
  function statusNotice(id, tag) {
    if (document.getElementById(id)) return null;
    var notice = document.createElement(tag);
    notice.id = id;
    notice.className = "notice changed";
    notice.setAttribute("role", "status");
    main.insertBefore(notice, main.firstChild);
    return notice;
  }
  function refresh() {
    if (busy()) return showChanged();
    if (refreshing) { again = true; return; }
    refreshing = true;
    fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (response.redirected && new URL(response.url).pathname === "/signin") {
          location.assign("/signin");
          return null;
        }
        return response.ok ? response.text() : null;
      })
      .then(function (text) {
        if (text === null) return;
        var page = new DOMParser().parseFromString(text, "text/html");
        var fresh = page.querySelector("main");
        if (!fresh) return;
        // The session's CSRF token changes with each answer: the header's sign-out form takes the new one.
        var token = page.querySelector("header input[name=_csrf]");
        if (token) document.querySelectorAll("header input[name=_csrf]").forEach(function (input) { input.value = token.value; });
        if (busy()) return showChanged();
        if (requestChanged(fresh)) return hold(fresh, page.title);
        swapIn(fresh, page.title);
      })
      .catch(function () { /* the next change tries again */ })
      .then(function () {
        refreshing = false;
        if (again) { again = false; refresh(); }
      });
  }
  var events = new EventSource(source);
  events.addEventListener("ready", function () { main.setAttribute("data-live", "ready"); });
  events.addEventListener("change", refresh);
  events.addEventListener("error", function () { main.setAttribute("data-live", "reconnecting"); });
})();
`;
