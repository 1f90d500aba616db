// Notifications of the chat page: when a reply lands in a channel not in view (another
// channel, or this one while the tab is hidden), the tab's title counts it and, with the
// person's permission (asked on their click), the browser shows a notification. A muted
// channel does neither; the mute is the person's, kept on the server.
"use strict";

(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const ui = JSON.parse(document.getElementById("ui").textContent);
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  const muted = new Set(boot.muted || []);
  const baseTitle = document.title;
  let unseenHere = 0; // replies in this channel while the tab was hidden

  function t(key, params) {
    let text = ui[key] || key;
    for (const [name, value] of Object.entries(params || {})) text = text.split("{" + name + "}").join(String(value));
    return text;
  }

  function link(channelId) {
    return document.querySelector('.side-channel[data-channel="' + channelId + '"]');
  }

  function channelName(channelId) {
    const found = link(channelId);
    const name = found && found.querySelector(".name");
    return name ? name.textContent.trim() : "";
  }

  // --- the count in the title: unread replies of unmuted channels ----------------------

  function unseen() {
    let total = muted.has(boot.channel) ? 0 : unseenHere;
    document.querySelectorAll(".side-channel").forEach((entry) => {
      const id = Number(entry.dataset.channel);
      const badge = entry.querySelector(".unread");
      if (id !== boot.channel && !muted.has(id) && badge) total += Number(badge.dataset.count || 0);
    });
    return total;
  }

  function updateTitle() {
    const count = unseen();
    document.title = count > 0 ? "(" + count + ") " + baseTitle : baseTitle;
  }

  const sidebar = document.querySelector(".side-channels");
  if (sidebar) {
    new MutationObserver(updateTitle).observe(sidebar, { subtree: true, attributes: true, attributeFilter: ["data-count"] });
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { unseenHere = 0; updateTitle(); }
  });

  // --- the browser's notifications -----------------------------------------------------

  const supported = "Notification" in window;
  const enable = document.getElementById("enable-notifications");

  function showEnable() {
    if (enable) enable.hidden = !supported || Notification.permission !== "default";
  }

  if (enable) {
    enable.addEventListener("click", async () => {
      if (!supported) return;
      // Asked on the person's click: browsers refuse a request made without one.
      await Notification.requestPermission();
      showEnable();
    });
  }
  showEnable();

  function notify(channelId) {
    if (!supported || Notification.permission !== "granted") return;
    const shown = new Notification(t("notify_title", { channel: channelName(channelId) }), {
      body: t("notify_body"),
      tag: "channel-" + channelId,
      lang: document.documentElement.lang || undefined,
    });
    shown.addEventListener("click", () => {
      window.focus();
      if (channelId !== boot.channel) location.href = "/c/" + channelId + "/";
      shown.close();
    });
  }

  document.addEventListener("office:frame", (event) => {
    const frame = event.detail;
    let channelId = null;
    if (frame.type === "channel.unread" && frame.channel !== boot.channel) {
      channelId = frame.channel;
    } else if (frame.type === "reply.done" && document.visibilityState !== "visible") {
      channelId = boot.channel;
      unseenHere += 1;
    }
    if (channelId === null) return;
    // The sidebar's badge moves with this frame too: counted once it has.
    setTimeout(updateTitle, 0);
    if (!muted.has(channelId)) notify(channelId);
  });

  // --- mute ----------------------------------------------------------------------------

  function markMuted(channelId) {
    const entry = link(channelId);
    if (!entry) return;
    const on = muted.has(channelId);
    entry.classList.toggle("is-muted", on);
    let mark = entry.querySelector(".mute-mark");
    if (on && !mark) {
      mark = document.createElement("span");
      mark.className = "mute-mark";
      mark.title = t("muted");
      const icon = document.createElement("span");
      icon.setAttribute("aria-hidden", "true");
      icon.textContent = "🔕";
      const said = document.createElement("span");
      said.className = "visually-hidden";
      said.textContent = t("muted");
      mark.append(icon, said);
      entry.querySelector(".name").after(mark);
    } else if (!on && mark) {
      mark.remove();
    }
  }

  const muteButton = document.getElementById("mute");

  function showMute() {
    if (!muteButton) return;
    const on = muted.has(boot.channel);
    muteButton.setAttribute("aria-pressed", on ? "true" : "false");
    muteButton.textContent = on ? t("unmute") : t("mute");
  }

  if (muteButton) {
    muteButton.addEventListener("click", async () => {
      const wanted = !muted.has(boot.channel);
      muteButton.disabled = true;
      try {
        const response = await fetch("/api/channels/" + boot.channel + "/mute", {
          method: "PUT",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
          body: JSON.stringify({ muted: wanted }),
        });
        if (response.ok) {
          const saved = await response.json();
          if (saved.muted) muted.add(boot.channel); else muted.delete(boot.channel);
        }
      } finally {
        muteButton.disabled = false;
        showMute();
        markMuted(boot.channel);
        updateTitle();
      }
    });
  }

  muted.forEach(markMuted);
  showMute();
  updateTitle();
})();
