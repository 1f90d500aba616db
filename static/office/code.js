// A Copy button on every code block of a reply (the server renders a reply's Markdown:
// chat.js inserts it into a `.md` body). It copies the code as written, without the
// highlighting's markup. Buttons are added as replies are drawn, whenever that is.
"use strict";

(function () {
  const timeline = document.getElementById("timeline");
  if (!timeline) return;
  const uiElement = document.getElementById("ui");
  const ui = uiElement ? JSON.parse(uiElement.textContent) : {};
  const label = ui.copy_code || "Copy code";
  const done = ui.copied || "Copied";

  async function copy(text) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (error) {
      // Without the clipboard API (an insecure origin): the old way, through a selection.
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
  }

  function equip(pre) {
    if (pre.dataset.copyable) return;
    pre.dataset.copyable = "1";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small copy-code";
    button.textContent = label;
    button.addEventListener("click", async () => {
      const code = pre.querySelector("code") || pre;
      await copy(code.textContent);
      button.textContent = done;
      setTimeout(() => { button.textContent = label; }, 1500);
    });
    const wrap = document.createElement("div");
    wrap.className = "code-block";
    pre.replaceWith(wrap);
    wrap.append(button, pre);
  }

  function scan(root) {
    root.querySelectorAll(".md pre").forEach(equip);
  }

  new MutationObserver((records) => {
    for (const record of records) {
      record.addedNodes.forEach((node) => { if (node.nodeType === 1) scan(node); });
    }
  }).observe(timeline, { childList: true, subtree: true });
  scan(timeline);
})();
