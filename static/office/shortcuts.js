// Keyboard shortcuts of the chat page, listed in a dialog behind "?": Enter sends (the
// composer's own), Esc stops the reply being written, "/" goes to the search, Alt+Shift+↓
// opens the next channel with unread replies. A key typed into a field is the field's,
// except Esc, which stops only when nothing else (a mention list, a panel, a dialog)
// would take it.
"use strict";

(function () {
  const dialog = document.getElementById("shortcuts");
  if (!dialog) return;

  function typing(target) {
    return target instanceof HTMLElement &&
      (target.isContentEditable || target.matches("input, textarea, select"));
  }

  function openHelp() {
    if (!dialog.open) dialog.showModal();
  }

  const helpButton = document.getElementById("open-shortcuts");
  if (helpButton) helpButton.addEventListener("click", openHelp);

  function nextUnread() {
    const links = Array.from(document.querySelectorAll(".side-channel"));
    const here = links.findIndex((link) => link.classList.contains("current"));
    for (let step = 1; step <= links.length; step += 1) {
      const link = links[(here + step) % links.length];
      const badge = link.querySelector(".unread");
      if (badge && Number(badge.dataset.count || 0) > 0) return link;
    }
    return null;
  }

  // Capture: decided before the composer's own handler, which closes a mention list on
  // the same Esc.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.isComposing) return;
    const stop = document.getElementById("stop");
    const mentions = document.getElementById("mentions");
    if (!stop || stop.hidden || stop.disabled) return;
    if (mentions && !mentions.hidden) return;
    if (document.querySelector("dialog[open]") || document.body.classList.contains("panel-open")) return;
    if (event.target instanceof Element && event.target.closest(".panel")) return;
    event.preventDefault();
    stop.click();
  }, true);

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey) return;
    if (event.altKey && event.shiftKey && event.key === "ArrowDown") {
      const link = nextUnread();
      if (link) { event.preventDefault(); location.href = link.href; }
      return;
    }
    if (typing(event.target) || event.altKey) return;
    if (event.key === "?") {
      event.preventDefault();
      openHelp();
    } else if (event.key === "/") {
      const search = document.getElementById("side-search-q");
      if (search) { event.preventDefault(); search.focus(); }
    }
  });
})();
