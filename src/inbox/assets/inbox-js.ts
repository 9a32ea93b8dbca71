/**
 * The inbox's only script, served as `/assets/inbox.js` (the content security policy allows no other):
 * it listens to the page's event stream and, on a `change`, fetches the page again and swaps in its
 * `<main>`, unless the person is writing a note; then it only says the run changed, with a link.
 */
export const INBOX_JS = `"use strict";
(function () {
  var main = document.querySelector("main");
  var source = main && main.getAttribute("data-events");
  if (!main || !source || typeof EventSource === "undefined") return;
  var refreshing = false;
  var again = false;
  function busy() {
    var note = document.querySelector("textarea[name=note]");
    return !!note && (document.activeElement === note || note.value.trim() !== "");
  }
  function showChanged() {
    if (document.getElementById("changed")) return;
    var notice = document.createElement("p");
    notice.id = "changed";
    notice.className = "notice changed";
    notice.setAttribute("role", "status");
    var link = document.createElement("a");
    link.href = location.href;
    link.textContent = "This run changed \\u2014 refresh";
    notice.appendChild(link);
    main.insertBefore(notice, main.firstChild);
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
        if (busy()) return showChanged();
        var nodes = [];
        fresh.childNodes.forEach(function (node) { nodes.push(document.importNode(node, true)); });
        main.replaceChildren.apply(main, nodes);
        document.title = page.title;
        main.setAttribute("data-refreshed", String(Number(main.getAttribute("data-refreshed") || "0") + 1));
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
