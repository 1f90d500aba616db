// The chat page: one WebSocket per channel, a timeline built from saved messages, replies
// streamed as they arrive, quiet reconnects that fetch what was missed by id, and the
// context and memory panels. Plain JavaScript; every text is inserted as text, never as
// HTML, except a reply's Markdown, which the server renders and sanitises (message.html),
// and the links of a person's own message, escaped before they are made.
"use strict";

(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  // Every word the script shows, translated on the server (office/ui.py).
  const ui = JSON.parse(document.getElementById("ui").textContent);
  const lang = document.documentElement.lang || undefined;
  const intro = document.getElementById("intro");
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  const timeline = document.getElementById("timeline");
  const working = document.getElementById("working");
  const connection = document.getElementById("connection");
  const composer = document.getElementById("composer");
  const input = document.getElementById("instruction");

  let socket = null;
  let lastId = 0;
  let retryDelay = 1000;
  const seen = new Set();
  const streams = new Map(); // mission id -> element being streamed into
  const outbox = new Map(); // client_id -> text, until the server echoes the instruction
  // What is under way, as the server says (docs/design.md §7): mission id -> its state
  // ({ mission, channel, employee, plan, stop }), from `mission.state`, `pending` and
  // `plan` frames, until the mission's `reply.done` or error. Never from an HTTP answer
  // or fetched history, which can be older than the frames already handled.
  const pending = new Map();

  // --- following the end of the conversation ------------------------------------------

  // Opening a channel shows its newest message, and keeps showing it while messages,
  // streamed replies and cards (drawn later by plan.js) arrive, unless the person
  // scrolled up to read, or the address names a mission to show.
  let following = !location.hash;

  function scroller() {
    return timeline.scrollHeight > timeline.clientHeight + 1
      ? timeline : document.scrollingElement || document.documentElement;
  }

  function nearEnd() {
    const box = scroller();
    const height = box === timeline ? box.clientHeight : window.innerHeight;
    return box.scrollHeight - box.scrollTop - height < 80;
  }

  function showEnd() {
    const last = timeline.lastElementChild;
    if (following && last) last.scrollIntoView({ block: "end" });
  }

  timeline.addEventListener("scroll", () => { following = nearEnd(); }, { passive: true });
  window.addEventListener("scroll", () => { following = nearEnd(); }, { passive: true });
  new MutationObserver(showEnd).observe(timeline, { childList: true, subtree: true });

  // --- rendering ---------------------------------------------------------------------

  function t(key, values) {
    return String(ui[key] || key).replace(/\{(\w+)\}/g, (all, name) =>
      values && values[name] !== undefined ? String(values[name]) : all);
  }

  function escapeHtml(text) {
    return text.replace(/[&<>"']/g, (c) => ({
      "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
    })[c]);
  }

  // [label](https://…) and bare http(s) addresses; a sentence's closing punctuation is
  // not part of the address.
  const LINK = /\[([^\]\n]+)\]\((https?:\/\/[^\s()<>"'`]+)\)|https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)*\]]/g;

  function links(text, format) {
    const style = format || ((html) => html);
    let out = "";
    let last = 0;
    for (const match of text.matchAll(LINK)) {
      out += style(escapeHtml(text.slice(last, match.index)));
      const url = match[2] || match[0];
      const label = match[2] ? style(escapeHtml(match[1])) : escapeHtml(url);
      out += '<a href="' + escapeHtml(url) + '" target="_blank" rel="noopener noreferrer">' + label + "</a>";
      last = match.index + match[0].length;
    }
    return out + style(escapeHtml(text.slice(last)));
  }

  function stamp(iso) {
    const d = new Date(iso);
    // In the zone the person chose (else the browser's).
    const timeZone = document.body.dataset.timeZone || undefined;
    return isNaN(d) ? "" : d.toLocaleString(lang, { dateStyle: "short", timeStyle: "short", timeZone });
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The number a person sees on a mission ("2", a synthesis "1a"); a message saved
  // before missions had labels carries only its seq.
  function shown(payload) {
    if (!payload) return "";
    return String(payload.label || payload.seq || "");
  }

  // An instruction another person of the office wrote: named, and not the reader's to edit.
  function byOther(message) {
    return Boolean(message.sender_id && message.sender_id !== boot.me && message.sender);
  }

  function render(message) {
    if (seen.has(message.id)) return;
    seen.add(message.id);
    lastId = Math.max(lastId, message.id);
    const item = el("li", "msg " + message.kind);
    item.id = "msg-" + message.id;
    item.dataset.id = message.id;
    if (message.mission) item.dataset.mission = message.mission;
    const meta = el("div", "meta");
    const from = message.payload && message.payload.delegated_by;
    // A meeting follow-up: the office's words in this channel, on behalf of the mission
    // whose notes it came from; never "You".
    const followUpOf = message.payload && message.payload.follow_up_of;
    const who = from ? t("from_master", { name: from })
      : followUpOf ? t("follow_up_from", { seq: message.payload.follow_up_label || followUpOf })
      : message.kind === "user" ? (byOther(message) ? message.sender : t("you"))
      : message.author || (message.kind === "notice" ? t("office") : "");
    if (from || followUpOf) item.classList.add("from-office");
    const number = shown(message.payload);
    meta.textContent = [who, stamp(message.created_at)].filter(Boolean).join(" · ") +
      (number ? " · #" + number : "");
    // A mission is anchored at the message that opens it: the instruction, or for a
    // synthesis ("1a", the office's) the event that starts it. Search results, the cost
    // page and the summary's citations link there.
    const opens = message.kind === "user" ||
      (message.kind === "event" && message.payload && message.payload.event === "synthesis");
    if (opens && number) {
      item.id = "mission-" + number;
    }
    item.appendChild(meta);
    const body = el("div", "body");
    const stopped = message.kind === "employee" && message.payload && message.payload.stopped;
    if (stopped) {
      item.classList.add("stopped");
      meta.appendChild(el("span", "stopped-label", " · " + t("stopped")));
    }
    if (message.payload && message.payload.attempt) {
      meta.appendChild(el("span", "attempt", " · " + t("attempt", { number: message.payload.attempt })));
    }
    if (stopped && !message.text) body.textContent = t("stopped_before_answer");
    else if (message.kind === "employee" && typeof message.html === "string") {
      body.classList.add("md");
      body.innerHTML = message.html;
    } else if (message.kind === "employee") body.textContent = message.text;
    else if (message.kind === "user") body.innerHTML = links(message.text);
    // What the office says (errors, events, notices) comes rendered in the reader's
    // language by the server, from the translation catalogue.
    else body.textContent = message.text;
    item.appendChild(body);
    const files = message.kind === "user" && message.payload && message.payload.attachments;
    if (Array.isArray(files) && files.length) item.appendChild(attachedList(files));
    const edited = message.kind === "user" && message.payload && message.payload.edited_from;
    if (edited) {
      const number = shown(edited);
      const from = el("a", "edited-from", t("edited_from", { seq: number }));
      from.href = edited.session === boot.session ? "#mission-" + number
        : "/c/" + boot.channel + "/?session=" + edited.session + "#mission-" + number;
      item.insertBefore(from, body);
    }
    replyActions(message, item);
    if (message.kind === "error" && message.payload && message.payload.retry && !boot.read_only &&
        message.mission) {
      // One way to retry a mission: the newest failure's button, until a reply comes.
      settleRetries(message.mission, false);
      const retry = el("button", "retry", t("retry"));
      retry.type = "button";
      retry.dataset.mission = message.mission;
      retry.addEventListener("click", () => retryMission(message.mission, retry));
      item.appendChild(retry);
    }
    if (message.kind === "notice" && message.payload && message.payload.action && !boot.read_only) {
      const start = el("button", "primary", message.payload.action.label || t("start_new_session"));
      start.type = "button";
      start.addEventListener("click", () => confirmNewSession(start));
      item.appendChild(start);
    }
    if ((from || followUpOf) && message.payload.from_url) {
      const back = el("a", "link source-link", t(from ? "back_to_master" : "back_to_notes"));
      back.href = message.payload.from_url;
      item.appendChild(back);
    }
    if (message.kind === "event" && message.payload && message.payload.event === "plan") {
      item.dataset.plan = message.payload.plan; // plan.js draws the card into it
    }
    if (message.kind === "event" && message.payload && message.payload.child_channel) {
      const link = el("a", "link", t("open_channel", { name: message.payload.employee || "" }));
      link.href = "/c/" + message.payload.child_channel + "/";
      item.appendChild(link);
    }
    // A notice belongs right under the instruction that triggered it.
    const after = message.payload && message.payload.after_message;
    const anchor = after && document.getElementById("msg-" + after);
    if (anchor && anchor.nextSibling) timeline.insertBefore(item, anchor.nextSibling);
    else timeline.appendChild(item);
    if (message.kind === "user") {
      if (message.payload && message.payload.client_id) outbox.delete(message.payload.client_id);
      removePendingBubble(message.payload && message.payload.client_id);
    }
    if (message.kind === "employee" && message.mission) settleRetries(message.mission, true);
    if (intro) intro.hidden = true;
    if ((message.kind === "employee" || message.kind === "error") && message.mission) {
      const streaming = streams.get(message.mission);
      if (streaming) { streaming.remove(); streams.delete(message.mission); }
    }
    if (message.kind === "employee" && message.mission) groupAttempts(message.mission);
    markRead();
    if (following) item.scrollIntoView({ block: "end" });
  }

  // A regenerated mission's replies stand in one place, the newest shown: "attempt 2 of
  // 3" with ◀ ▶ switches between them there (the earlier ones move beside the newest).
  function groupAttempts(missionId) {
    const replies = Array.from(timeline.querySelectorAll(
      'li.msg.employee[data-mission="' + missionId + '"]:not(.streaming)'));
    if (replies.length < 2) return;
    const newest = replies[replies.length - 1];
    for (const reply of replies.slice(0, -1)) newest.before(reply);
    showAttempt(replies, replies.length - 1);
  }

  function showAttempt(replies, index) {
    replies.forEach((reply, i) => {
      reply.hidden = i !== index;
      reply.classList.toggle("earlier-attempt", i !== replies.length - 1);
      let nav = reply.querySelector(".attempts");
      if (!nav) {
        nav = el("span", "attempts");
        reply.querySelector(".meta").appendChild(nav);
      }
      nav.replaceChildren();
      const back = el("button", "small attempt-prev", "◀");
      back.type = "button";
      back.disabled = i === 0;
      back.setAttribute("aria-label", t("previous_attempt"));
      back.addEventListener("click", () => showAttempt(replies, i - 1));
      const next = el("button", "small attempt-next", "▶");
      next.type = "button";
      next.disabled = i === replies.length - 1;
      next.setAttribute("aria-label", t("next_attempt"));
      next.addEventListener("click", () => showAttempt(replies, i + 1));
      nav.append(back, el("span", "attempt-of",
        t("attempt_of", { number: i + 1, count: replies.length })), next);
    });
    if (replies[index].hidden === false && document.activeElement &&
        replies.some((r) => r.contains(document.activeElement))) {
      const focus = replies[index].querySelector(index > 0 ? ".attempt-prev" : ".attempt-next");
      if (focus && !focus.disabled) focus.focus();
    }
  }

  // Copy on every reply; Regenerate on a mission's newest reply; Edit on an instruction.
  function replyActions(message, item) {
    if (message.kind === "employee") {
      const actions = el("div", "actions");
      const copy = el("button", "small copy", t("copy"));
      copy.type = "button";
      copy.addEventListener("click", () => copyText(message.text, copy));
      actions.appendChild(copy);
      // Not where a new attempt would be refused (a plan's reply, a part's, a synthesis).
      const regenerable = !(message.payload && message.payload.regenerable === false);
      if (!boot.read_only && message.mission && regenerable) {
        // Only the newest reply of a mission offers a new attempt.
        timeline.querySelectorAll('button.regenerate[data-mission="' + message.mission + '"]')
          .forEach((old) => old.remove());
        const again = el("button", "small regenerate", t("regenerate"));
        again.type = "button";
        again.dataset.mission = message.mission;
        again.addEventListener("click", () => regenerate(message.mission, again));
        actions.appendChild(again);
      }
      item.appendChild(actions);
    } else if (message.kind === "user" && message.mission && !boot.read_only && composer &&
               !byOther(message)) {
      const actions = el("div", "actions");
      const edit = el("button", "small edit", t("edit"));
      edit.type = "button";
      edit.addEventListener("click", () => startEdit(message));
      actions.appendChild(edit);
      item.appendChild(actions);
    }
  }

  async function copyText(text, button) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (error) {
      // Without the clipboard API (an insecure origin): the old way, through a selection.
      const area = el("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    button.textContent = t("copied");
    setTimeout(() => { button.textContent = t("copy"); }, 1500);
  }

  // The mission's `mission.state` frame shows it under way: the answer to this request
  // may come after the new reply itself.
  async function regenerate(missionId, button) {
    button.disabled = true;
    try {
      await api("POST", "/api/missions/" + missionId + "/regenerate");
    } catch (error) {
      status(error.message);
      button.disabled = false;
    }
  }

  // Edit and resend: the instruction comes back into the box; sent, it is a new mission
  // linked to the one edited, which stays as it was.
  let editing = null;
  const editBar = document.getElementById("editing");

  function startEdit(message) {
    editing = { mission: message.mission, seq: shown(message.payload) };
    input.value = message.text;
    updateCounter();
    if (editBar) {
      editBar.hidden = false;
      editBar.querySelector(".label").textContent = t("editing", { seq: editing.seq });
    }
    input.focus();
  }

  function endEdit() {
    editing = null;
    if (editBar) editBar.hidden = true;
  }

  if (editBar) editBar.querySelector("button").addEventListener("click", () => {
    endEdit();
    input.value = "";
    updateCounter();
  });

  // A failed mission's earlier Retry buttons go: replaced by the newest failure's, or,
  // once the mission is answered, by a note pointing at the answer.
  function settleRetries(missionId, done) {
    timeline.querySelectorAll('button.retry[data-mission="' + missionId + '"]').forEach((button) => {
      if (done) button.replaceWith(el("span", "answered", t("answered_below")));
      else button.remove();
    });
  }

  const stopButton = document.getElementById("stop");

  function underWay(state) {
    if (state.status === "queued" || state.status === "running") pending.set(state.mission, state);
    else pending.delete(state.mission);
  }

  function ended(missionId) {
    pending.delete(missionId);
    updateWorking();
  }

  // A plan's parts work in their employees' channels: the master channel follows them
  // through the plan's frames, each stopped with the plan.
  function planUnderWay(plan) {
    for (const [id, state] of pending) {
      if (state.plan === plan.mission && state.channel !== boot.channel) pending.delete(id);
    }
    for (const part of plan.delegates) {
      if (part.status !== "queued" && part.status !== "working") continue;
      pending.set(part.mission, {
        mission: part.mission, channel: part.channel, status: part.status,
        employee: part.employee, plan: plan.mission, stop: plan.mission,
      });
    }
    updateWorking();
  }

  function stopTargets() {
    return new Set(Array.from(pending.values(), (state) => state.stop).filter(Boolean));
  }

  // One line per person at work, named (each delegate of a plan, the chief of staff
  // summing up), however many of their missions are under way.
  function updateWorking() {
    if (!working) return;
    working.replaceChildren();
    const names = new Set(Array.from(pending.values(),
      (state) => state.employee || boot.employee || t("the_team")));
    for (const name of names) {
      const line = el("span", "worker", t("working", { name: name }));
      line.dataset.employee = name;
      working.appendChild(line);
    }
    working.hidden = pending.size === 0;
    if (stopButton) { stopButton.hidden = stopTargets().size === 0; stopButton.disabled = false; }
  }

  // Stop generating: everything under way here (a plan: the whole plan). What came stays,
  // marked stopped; the server's frames take each mission out of `pending`.
  function stopReplies() {
    const targets = stopTargets();
    if (!targets.size) return;
    stopButton.disabled = true;
    for (const missionId of targets) {
      if (socket && socket.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify({ type: "mission.stop", mission: missionId }));
      } else {
        api("POST", "/api/missions/" + missionId + "/stop").catch((error) => status(error.message));
      }
    }
  }

  if (stopButton) stopButton.addEventListener("click", stopReplies);

  function delta(frame) {
    let bubble = streams.get(frame.mission);
    if (bubble && frame.index === 0) {
      // The reply started over (its worker was replaced): show the new attempt only.
      bubble.lastChild.textContent = "";
    }
    if (!bubble) {
      bubble = el("li", "msg employee streaming");
      bubble.dataset.mission = frame.mission;
      const writer = (pending.get(frame.mission) || {}).employee || boot.employee || t("reply");
      bubble.appendChild(el("div", "meta", writer + " · " + t("typing")));
      bubble.appendChild(el("div", "body", ""));
      timeline.appendChild(bubble);
      streams.set(frame.mission, bubble);
    }
    bubble.lastChild.textContent += frame.text;
    if (following) bubble.scrollIntoView({ block: "end" });
  }

  function pendingBubble(clientId, text) {
    const item = el("li", "msg user sending");
    item.dataset.client = clientId;
    item.appendChild(el("div", "meta", t("sending")));
    item.appendChild(el("div", "body", text));
    timeline.appendChild(item);
  }

  function removePendingBubble(clientId) {
    if (!clientId) return;
    const bubble = timeline.querySelector('li.sending[data-client="' + CSS.escape(clientId) + '"]');
    if (bubble) bubble.remove();
  }

  // --- the channel sidebar: unread counts ---------------------------------------------

  function setUnread(channelId, count) {
    const link = document.querySelector('.side-channel[data-channel="' + channelId + '"]');
    const badge = link && link.querySelector(".unread");
    if (!badge) return;
    badge.dataset.count = String(count);
    badge.hidden = count <= 0;
    badge.firstChild.textContent = String(count);
    badge.lastChild.textContent = t("unread", { count: count });
  }

  // Opening a channel reads it; so does a reply arriving while the page is in view. A
  // past session shows old messages: the marker goes only as far as the newest shown.
  let readThrough = 0;
  let readTimer = null;

  function sendRead() {
    clearTimeout(readTimer);
    readTimer = null;
    const through = lastId;
    if (through <= readThrough) return;
    // keepalive: a read sent as the person leaves for another channel still arrives.
    fetch("/api/channels/" + boot.channel + "/read", {
      method: "POST",
      credentials: "same-origin",
      keepalive: true,
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ message_id: through }),
    }).then((response) => {
      if (response.ok) readThrough = Math.max(readThrough, through);
    }).catch(() => { /* the next message or visit marks it */ });
  }

  function markRead() {
    if (document.visibilityState !== "visible" || lastId <= readThrough) return;
    clearTimeout(readTimer);
    readTimer = setTimeout(sendRead, 150);
  }

  document.addEventListener("visibilitychange", markRead);
  window.addEventListener("pagehide", () => { if (readTimer) sendRead(); });
  // Logging out ends the session before a read sent on the way out would arrive (it was
  // refused, 401): the next visit marks the channel read instead.
  const logoutForm = document.querySelector("form.logout");
  if (logoutForm) {
    logoutForm.addEventListener("submit", () => { clearTimeout(readTimer); readTimer = null; });
  }

  function unreadFrame(frame) {
    if (frame.channel === boot.channel) { markRead(); return; }
    const link = document.querySelector('.side-channel[data-channel="' + frame.channel + '"]');
    const badge = link && link.querySelector(".unread");
    if (badge) setUnread(frame.channel, Number(badge.dataset.count || 0) + 1);
  }

  // --- the socket --------------------------------------------------------------------

  function status(text) {
    if (connection) connection.textContent = text;
  }

  function connect() {
    if (boot.read_only) return;
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws/channels/" + boot.channel + "/");
    socket.addEventListener("open", async () => {
      // A new socket starts from what is under way now: its `pending` frame (none sent,
      // nothing is), and the frames after it.
      pending.clear();
      updateWorking();
      status("");
      retryDelay = 1000;
      await resync();
      for (const [clientId, sent] of outbox) send(clientId, sent.text, sent.edits, sent.files);
    });
    socket.addEventListener("message", (event) => handle(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      if (event.code === 4404) { status(t("unavailable")); return; }
      status(t("reconnecting"));
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
    });
  }

  function handle(frame) {
    document.dispatchEvent(new CustomEvent("office:frame", { detail: frame }));
    if (frame.type === "message" || frame.type === "notice") {
      if (frame.message.session === boot.session) render(frame.message);
      if (frame.message.kind === "error" && frame.message.mission) ended(frame.message.mission);
    } else if (frame.type === "reply.delta") {
      delta(frame);
    } else if (frame.type === "reply.done") {
      if (frame.message.session === boot.session) render(frame.message);
      ended(frame.mission);
    } else if (frame.type === "mission.state") {
      underWay(frame.mission);
      updateWorking();
    } else if (frame.type === "pending") {
      pending.clear();
      frame.missions.forEach(underWay);
      updateWorking();
    } else if (frame.type === "plan") {
      planUnderWay(frame.plan);
    } else if (frame.type === "channel.unread") {
      unreadFrame(frame);
    } else if (frame.type === "session.started") {
      location.href = "/c/" + boot.channel + "/";
    } else if (frame.type === "error") {
      const known = ui.errors[frame.code];
      status(known ? known.replace("{seconds}", String(frame.retry_after || 1)) : frame.message);
      if (frame.client_id && outbox.has(frame.client_id)) {
        // The instruction was refused: give the text back so nothing is lost, every
        // refused one (a burst refused by the rate limit comes back whole, in order).
        giveBack(outbox.get(frame.client_id).text);
        if (window.OfficeAttach) window.OfficeAttach.giveBack(outbox.get(frame.client_id).files);
        outbox.delete(frame.client_id);
        removePendingBubble(frame.client_id);
      }
    }
  }

  async function resync() {
    let more = true;
    while (more) {
      const response = await fetch("/api/channels/" + boot.channel + "/messages?after=" + lastId,
        { credentials: "same-origin" });
      if (!response.ok) return;
      const page = await response.json();
      page.messages.filter((m) => m.session === boot.session).forEach(render);
      const highest = page.messages.reduce((max, m) => Math.max(max, m.id), lastId);
      more = page.has_more && highest > lastId;
      lastId = highest;
    }
  }

  function send(clientId, text, edits, files) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      const frame = { type: "instruction", text: text, client_id: clientId };
      if (edits) frame.edits = edits;
      if (files && files.length) frame.attachments = files.map((f) => f.id);
      socket.send(JSON.stringify(frame));
    }
  }

  function newClientId() {
    return (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random()).slice(0, 64);
  }

  function giveBack(text) {
    if (!input || !text || input.value.includes(text)) return;
    input.value = input.value.trim() ? input.value.replace(/\s+$/, "") + "\n\n" + text : text;
    updateCounter();
  }

  // The box takes any length (no maxlength: a paste is never cut silently); beside it,
  // the count once it nears the limit, and over the limit what to do. Nothing over the
  // limit is sent, and the text stays in the box.
  const counter = document.getElementById("counter");

  function number(value) {
    return value.toLocaleString(lang);
  }

  function updateCounter(refused) {
    if (!counter || !input) return;
    const count = input.value.trim().length;
    const limit = boot.max_chars;
    const over = count > limit;
    counter.hidden = count < limit * 0.8;
    counter.classList.toggle("over", over);
    input.setAttribute("aria-invalid", String(over));
    counter.textContent = over
      ? t("too_long", { count: number(count), limit: number(limit) }) +
        (refused ? " " + t("not_sent", { over: number(count - limit) }) : "")
      : t("count", { count: number(count), limit: number(limit) });
  }

  function submit() {
    const text = input.value.trim();
    if (!text) return;
    if (text.length > boot.max_chars) {
      updateCounter(true);
      input.focus();
      return;
    }
    if (window.OfficeAttach && window.OfficeAttach.busy()) {
      status(t("wait_for_files"));
      return;
    }
    const clientId = newClientId();
    const edits = editing ? editing.mission : null;
    const files = window.OfficeAttach ? window.OfficeAttach.take() : [];
    outbox.set(clientId, { text: text, edits: edits, files: files });
    pendingBubble(clientId, text);
    input.value = "";
    endEdit();
    updateCounter();
    hideMentions();
    send(clientId, text, edits, files); // if the socket is down, it goes when it is back
  }

  async function api(method, url, body) {
    const response = await fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.message || data.detail || response.statusText);
    return data;
  }

  async function retryMission(missionId, button) {
    button.disabled = true;
    try {
      await api("POST", "/api/missions/" + missionId + "/retry");
    } catch (error) {
      status(error.message);
      button.disabled = false;
    }
  }

  // Asks before acting, in the page's own <dialog> (no window.confirm: it blocks the page
  // and cannot be styled or translated). Resolves true when the person confirmed.
  function confirmAction(text, okLabel) {
    const dialog = document.getElementById("confirm");
    if (!dialog || typeof dialog.showModal !== "function") return Promise.resolve(true);
    dialog.querySelector("#confirm-text").textContent = text;
    dialog.querySelector(".confirm-ok").textContent = okLabel;
    dialog.returnValue = "";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
      dialog.showModal();
      dialog.querySelector(".confirm-cancel").focus();
    });
  }

  async function confirmNewSession(button) {
    if (await confirmAction(t("confirm_new_session"), t("start_new_session"))) startSession(button);
  }

  function startSession(button) {
    if (button) button.disabled = true;
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "session.new", session_id: boot.current_session }));
    } else {
      api("POST", "/api/channels/" + boot.channel + "/sessions", { session_id: boot.current_session })
        .then(() => { location.href = "/c/" + boot.channel + "/"; })
        .catch((error) => { status(error.message); if (button) button.disabled = false; });
    }
  }

  // --- @name completion (project channels) --------------------------------------------

  const mentions = document.getElementById("mentions");
  let choice = 0;

  // A name is typed in any script: "@지" and "@ㅈ" (its initial consonant) find 지수.
  const MENTION = /@([\p{L}\p{N}._-]*)$/u;
  const INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";

  function initialOf(char) {
    const code = char.charCodeAt(0) - 0xac00;
    return code >= 0 && code < 11172 ? INITIALS[Math.floor(code / 588)] : char;
  }

  function mentionMatches(name, query) {
    const letters = Array.from(name.toLowerCase());
    const typed = Array.from(query);
    return typed.length <= letters.length && typed.every((char, i) =>
      char === letters[i] || (INITIALS.includes(char) && initialOf(letters[i]) === char));
  }

  function mentionQuery() {
    const before = input.value.slice(0, input.selectionStart);
    const match = before.match(MENTION);
    return match ? match[1].toLowerCase() : null;
  }

  function hideMentions() {
    if (mentions) { mentions.hidden = true; mentions.textContent = ""; }
  }

  function showMentions() {
    const query = boot.kind === "project" || boot.kind === "master" || boot.kind === "all" ? mentionQuery() : null;
    if (query === null || !mentions) { hideMentions(); return; }
    const names = boot.members.filter((n) => mentionMatches(n, query));
    if (!names.length) { hideMentions(); return; }
    mentions.textContent = "";
    choice = Math.min(choice, names.length - 1);
    names.forEach((name, i) => {
      const option = el("li", i === choice ? "active" : "", "@" + name);
      option.setAttribute("role", "option");
      option.addEventListener("mousedown", (event) => { event.preventDefault(); complete(name); });
      mentions.appendChild(option);
    });
    mentions.hidden = false;
  }

  function complete(name) {
    const start = input.selectionStart;
    const before = input.value.slice(0, start).replace(MENTION, "@" + name + " ");
    input.value = before + input.value.slice(start);
    input.selectionStart = input.selectionEnd = before.length;
    hideMentions();
  }

  if (composer) {
    composer.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
    input.addEventListener("input", () => { choice = 0; showMentions(); updateCounter(); });
    input.addEventListener("keydown", (event) => {
      // The Enter that ends a composition (Hangul, kana…) belongs to the input method.
      if (event.isComposing || event.keyCode === 229) return;
      const open = mentions && !mentions.hidden;
      if (open && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
        event.preventDefault();
        choice += event.key === "ArrowDown" ? 1 : -1;
        choice = Math.max(0, choice);
        showMentions();
      } else if (open && (event.key === "Tab" || event.key === "Enter")) {
        event.preventDefault();
        complete(mentions.children[choice].textContent.slice(1));
      } else if (open && event.key === "Escape") {
        hideMentions();
      } else if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        submit();
      }
    });
  }

  // --- panels ------------------------------------------------------------------------

  // On a wide screen a panel opens beside the chat; on a phone it is an overlay
  // (office.css). Either way it is scrolled into view and takes the focus, and closing
  // it gives the focus back to the button that opened it.
  const panels = {};

  function setPanel(panelId, open) {
    const entry = panels[panelId];
    if (!entry) return;
    entry.panel.hidden = !open;
    entry.button.setAttribute("aria-expanded", String(open));
    if (open) {
      Object.keys(panels).forEach((other) => { if (other !== panelId) setPanel(other, false); });
      document.body.classList.add("panel-open");
      entry.panel.scrollIntoView({ block: "start" });
      entry.panel.focus({ preventScroll: true });
      entry.onOpen();
    } else if (!Object.values(panels).some((p) => !p.panel.hidden)) {
      document.body.classList.remove("panel-open");
    }
  }

  function toggle(buttonId, panelId, onOpen) {
    const button = document.getElementById(buttonId);
    const panel = document.getElementById(panelId);
    if (!button || !panel) return;
    panels[panelId] = { button: button, panel: panel, onOpen: onOpen };
    button.addEventListener("click", () => setPanel(panelId, panel.hidden));
    panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { setPanel(panelId, false); button.focus(); }
    });
  }

  document.querySelectorAll(".close-panel").forEach((close) => {
    close.addEventListener("click", () => {
      setPanel(close.dataset.panel, false);
      const entry = panels[close.dataset.panel];
      if (entry) entry.button.focus();
    });
  });

  function refLinks(text) {
    // "[#3, s1#7]" pointers become links to the missions they cite.
    const frag = document.createDocumentFragment();
    const parts = text.split(/(s\d+#\d+[a-z]*|#\d+[a-z]*)/);
    parts.forEach((part) => {
      const own = part.match(/^#(\d+[a-z]*)$/);
      if (own) {
        const a = el("a", "ref", part);
        a.href = "#mission-" + own[1];
        frag.appendChild(a);
      } else {
        frag.appendChild(document.createTextNode(part));
      }
    });
    return frag;
  }

  // The summary cites missions by seq; the person sees them by their numbers
  // (summary.labels: "#3" → "#2"). A summary without labels shows its pointers.
  let summaryLabels = {};

  function summaryList(title, items, htmls) {
    const wrap = el("div", "summary-block");
    wrap.appendChild(el("h4", "", title));
    const list = el("ul");
    items.forEach((item, index) => {
      const li = el("li", item.superseded ? "superseded" : "");
      const pointers = (item.missions || []).map((s) => {
        const ref = (item.session ? "s" + item.session : "") + "#" + s;
        return summaryLabels[ref] || ref;
      }).join(", ");
      const html = htmls && htmls[index];
      if (typeof html === "string") {
        // The item's Markdown, rendered and sanitised by the server (push/markdown.py).
        const text = el("span", "md");
        text.innerHTML = html;
        li.appendChild(text);
        if (pointers) li.appendChild(refLinks(" [" + pointers + "]"));
      } else {
        li.appendChild(refLinks(item.text + (pointers ? " [" + pointers + "]" : "")));
      }
      list.appendChild(li);
    });
    wrap.appendChild(list);
    return wrap;
  }

  // The files an instruction was given with: each a link to the file as it was sent; an
  // image shown small.
  function attachedList(files) {
    const list = el("ul", "attached sent");
    list.setAttribute("aria-label", t("attached_files"));
    for (const file of files) {
      const item = el("li", "file");
      const link = el("a", "file-name", file.name);
      link.href = "/api/attachments/" + file.id;
      if (file.kind === "image") {
        const image = el("img", "thumb");
        image.src = link.href;
        image.alt = file.name;
        image.loading = "lazy";
        link.prepend(image);
      } else {
        link.setAttribute("download", file.name);
      }
      item.appendChild(link);
      list.appendChild(item);
    }
    return list;
  }

  async function loadContext() {
    const body = document.getElementById("context-body");
    body.textContent = t("loading");
    try {
      const [report, summary] = await Promise.all([
        api("GET", "/api/channels/" + boot.channel + "/context?attachments=" +
          (window.OfficeAttach ? window.OfficeAttach.ids().join(",") : "")),
        api("GET", "/api/channels/" + boot.channel + "/summary"),
      ]);
      body.textContent = "";
      const table = el("ul", "sections");
      report.sections.forEach((section) => {
        const li = el("li", "section");
        const name = ui.sections[section.name] || section.name;
        const size = section.budget
          ? t("chars_of", { chars: section.chars, budget: section.budget })
          : t("chars", { chars: section.chars });
        const label = name + ": " + size;
        li.appendChild(el("span", "label", label));
        if (section.budget) {
          const bar = el("progress");
          bar.max = section.budget;
          bar.value = Math.min(section.chars, section.budget);
          bar.setAttribute("aria-label", label);
          li.appendChild(bar);
        }
        const held = section.mission_labels || section.mission_seqs;
        if (held.length) {
          li.appendChild(el("span", "held", " " + t("missions_held", { list: held.map((s) => "#" + s).join(", ") })));
        }
        if (section.name === "attachments" && window.OfficeAttach) {
          li.appendChild(el("span", "held", " " + window.OfficeAttach.names().join(", ")));
        }
        if (section.memory_ids.length) {
          li.appendChild(el("span", "held", " " + t("memory_held", { list: section.memory_ids.join(", ") })));
        }
        table.appendChild(li);
      });
      body.appendChild(table);
      body.appendChild(el("p", "muted", t("total", { chars: report.total_chars })));
      const state = summary.state || {};
      summaryLabels = summary.labels || {};
      const head = el("h3", "", t("rolling_summary") + (summary.carry_over_pending ? " " + t("carrying_over") : ""));
      head.id = "rolling-summary";
      body.appendChild(head);
      if (state.goal) body.appendChild(el("p", "goal", t("goal", { goal: state.goal })));
      [[t("decisions"), state.decisions, "decisions"], [t("constraints"), state.constraints, "constraints"],
        [t("facts"), state.facts, "facts"], [t("open_questions"), state.open_questions, "open_questions"],
        [t("next_actions"), state.next_actions, "next_actions"]].forEach(([title, items, key]) => {
        if (items && items.length) body.appendChild(summaryList(title, items, (summary.html || {})[key]));
      });
      if (!state.goal && !(state.decisions || []).length && !(state.facts || []).length) {
        body.appendChild(el("p", "muted", t("nothing_folded")));
      }
    } catch (error) {
      body.textContent = t("context_failed", { error: error.message });
    }
  }

  async function loadMemory() {
    const list = document.getElementById("memory-list");
    list.textContent = "";
    try {
      const [items, proposals] = await Promise.all([
        api("GET", "/api/channels/" + boot.channel + "/memory"),
        api("GET", "/api/channels/" + boot.channel + "/memory/proposals"),
      ]);
      proposals.forEach((proposal) => list.appendChild(proposalRow(proposal)));
      if (!items.length) list.appendChild(el("li", "muted", t("nothing_remembered")));
      items.forEach((item) => list.appendChild(memoryRow(item)));
    } catch (error) {
      list.appendChild(el("li", "muted", t("memory_failed", { error: error.message })));
    }
  }

  // A change a conversation would make to what the person set down: theirs to decide.
  function proposalRow(proposal) {
    const li = el("li", "memory-item proposed");
    li.dataset.proposal = proposal.id;
    const old = proposal.replaces.map((item) => item.text).join(" · ");
    li.appendChild(el("span", "kind", t("proposed_change", { old: old })));
    li.appendChild(el("span", "text", proposal.text));
    const accept = el("button", "small", t("confirm_change"));
    accept.type = "button";
    accept.addEventListener("click", () => api("POST", "/api/memory/proposals/" + proposal.id + "/confirm").then(loadMemory, (e) => status(e.message)));
    const keep = el("button", "small", t("reject_change"));
    keep.type = "button";
    keep.addEventListener("click", () => api("POST", "/api/memory/proposals/" + proposal.id + "/reject").then(loadMemory, (e) => status(e.message)));
    li.append(accept, keep);
    return li;
  }

  function memoryRow(item) {
    const li = el("li", "memory-item" + (item.pinned ? " pinned" : ""));
    li.dataset.id = item.id;
    li.appendChild(el("span", "kind", (ui.kinds[item.kind] || item.kind) + " · " + (ui.scopes[item.scope] || item.scope)));
    const text = el("span", "text", item.text);
    li.appendChild(text);
    const pin = el("button", "small", item.pinned ? t("unpin") : t("pin"));
    pin.type = "button";
    pin.addEventListener("click", () => api("PATCH", "/api/memory/" + item.id, { pinned: !item.pinned }).then(loadMemory, (e) => status(e.message)));
    const edit = el("button", "small", t("edit"));
    edit.type = "button";
    edit.addEventListener("click", () => {
      const field = el("input");
      field.value = item.text;
      field.setAttribute("aria-label", t("edit_memory"));
      text.replaceWith(field);
      field.focus();
      field.addEventListener("keydown", (event) => {
        if (event.key === "Enter") api("PATCH", "/api/memory/" + item.id, { text: field.value }).then(loadMemory, (e) => status(e.message));
        if (event.key === "Escape") loadMemory();
      });
    });
    const retire = el("button", "small", t("retire"));
    retire.type = "button";
    retire.addEventListener("click", async () => {
      if (!(await confirmAction(t("confirm_retire_memory"), t("retire_memory")))) return;
      api("POST", "/api/memory/" + item.id + "/retire").then(loadMemory, (e) => status(e.message));
    });
    li.append(pin, edit, retire);
    return li;
  }

  const memoryForm = document.getElementById("memory-add");
  if (memoryForm) {
    memoryForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(memoryForm);
      const body = { office: boot.office, scope: data.get("scope"), kind: data.get("kind"), text: data.get("text") };
      if (body.scope === "employee") body.employee = boot.employee_id;
      if (body.scope === "channel") body.channel = boot.channel;
      try {
        await api("POST", "/api/memory", body);
        memoryForm.reset();
        loadMemory();
      } catch (error) {
        status(error.message);
      }
    });
  }

  toggle("open-context", "context-panel", loadContext);
  toggle("open-memory", "memory-panel", loadMemory);
  const newSession = document.getElementById("new-session");
  if (newSession) newSession.addEventListener("click", () => confirmNewSession(newSession));
  const showCarried = document.getElementById("show-carried");
  if (showCarried) showCarried.addEventListener("click", (event) => {
    event.preventDefault();
    setPanel("context-panel", true);
  });
  const switcher = document.getElementById("session-switch");
  if (switcher) switcher.addEventListener("change", () => {
    location.href = "/c/" + boot.channel + "/?session=" + switcher.value;
  });

  boot.messages.forEach(render);
  // A search result opens its mission here: shown and marked, not the newest message.
  const named = location.hash.match(/^#mission-(\d+[a-z]*)$/);
  const found = named && document.getElementById("mission-" + named[1]);
  if (found) {
    found.classList.add("found");
    found.scrollIntoView({ block: "center" });
  }
  connect();
})();
