// The exported session's own script: filter modes, search and deep links, as on the
// history page, in the browser with no server.
(function () {
  "use strict";
  var list = document.getElementById("transcript");
  var entries = Array.prototype.slice.call(list.querySelectorAll("li.entry"));
  var branches = Array.prototype.slice.call(list.querySelectorAll("li.side-branch")).reverse();
  var search = document.getElementById("search");
  var count = document.querySelector("[data-testid=entry-count]");
  var buttons = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  var filter = "default";
  // The entries of the line shown alone (`#leafId=…` other than the session's own), by id;
  // null for the whole session.
  var line = null;
  var notice = document.getElementById("line-notice");

  function passes(li) {
    var kind = li.getAttribute("data-kind");
    switch (filter) {
      case "learner": return li.classList.contains("speaker-learner");
      case "labelled": return li.hasAttribute("data-labelled");
      case "all": return true;
      default: return kind === "message" || kind === "branch_summary" || kind === "summary";
    }
  }

  function apply() {
    var terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    entries.forEach(function (li) {
      var text = li.textContent.toLowerCase();
      var visible = passes(li) && terms.every(function (t) { return text.indexOf(t) >= 0; }) &&
        (!line || line[li.id] === true);
      li.hidden = !visible;
      if (visible) shown++;
    });
    // Innermost first: a branch shows when anything in it does.
    branches.forEach(function (b) {
      b.hidden = !b.querySelector("li.entry:not([hidden])");
      // A line shown alone is shown in full: the branches it runs through open.
      if (line && !b.hidden) b.querySelector("details").open = true;
    });
    notice.hidden = !line;
    count.textContent = shown + " of " + entries.length + " entries shown";
    buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === filter)); });
  }

  function follow() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var kv = pair.split("=");
      if (kv[0]) params[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1] || "");
    });
    var previous = list.querySelector("li.entry.target");
    if (previous) previous.classList.remove("target");
    // The line from the start of the session to `leafId`, as the history page shows it.
    line = null;
    var leaf = params.leafId && params.leafId !== list.getAttribute("data-leaf") &&
      document.getElementById("entry-" + params.leafId);
    if (leaf) {
      line = {};
      for (var at = leaf, steps = 0; at && steps <= entries.length; steps++) {
        line[at.id] = true;
        var parent = at.getAttribute("data-parent");
        at = parent && document.getElementById("entry-" + parent);
      }
    }
    apply();
    var target = params.targetId && document.getElementById("entry-" + params.targetId);
    if (!target) return;
    if (target.hidden) { filter = "all"; search.value = ""; apply(); }
    for (var node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    target.classList.add("target");
    target.scrollIntoView({ block: "center" });
  }

  buttons.forEach(function (b) {
    b.addEventListener("click", function () { filter = b.getAttribute("data-filter"); apply(); });
  });
  search.addEventListener("input", apply);
  window.addEventListener("hashchange", follow);

  // The outline: each branch, linked to its first entry.
  var outline = document.getElementById("outline");
  Array.prototype.slice.call(list.querySelectorAll("li.side-branch")).forEach(function (b) {
    var first = b.querySelector("li.entry");
    var title = b.querySelector("summary strong");
    if (!first || !title) return;
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.href = "#targetId=" + first.id.replace(/^entry-/, "");
    link.textContent = title.textContent;
    item.appendChild(link);
    outline.appendChild(item);
  });

  if (window.katex) {
    Array.prototype.slice.call(list.querySelectorAll("span.math")).forEach(function (span) {
      window.katex.render(span.textContent, span, {
        displayMode: span.classList.contains("display"), throwOnError: false, trust: false
      });
    });
  }
  apply();
  follow();
})();
