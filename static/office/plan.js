// The plan card of the master channel: when the chief of staff delegates, the plan's
// timeline entry shows who does what, how far each part is (queued / working / done /
// failed), how long it has taken, a link to each delegated mission in its 1:1 channel,
// Retry for a failed part, and the synthesis. Drawn from GET /api/missions/<id>/plan and
// redrawn from every `plan` frame the chat page's socket receives (chat.js passes frames
// on as an "office:frame" event). Every text is inserted as text.
"use strict";

(function () {
  const timeline = document.getElementById("timeline");
  if (!timeline) return;
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  const uiElement = document.getElementById("ui");
  const ui = uiElement ? JSON.parse(uiElement.textContent) : {};
  function t(key, fallback, values) {
    return String(ui[key] || fallback).replace(/\{(\w+)\}/g, (all, name) =>
      values && values[name] !== undefined ? String(values[name]) : all);
  }
  function state(status) {
    return t("plan_" + status, status);
  }
  const cards = new Map(); // plan id -> card element
  const latest = new Map(); // plan id -> newest plan data seen

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function seconds(part) {
    const start = Date.parse(part.created_at);
    const end = part.finished_at ? Date.parse(part.finished_at) : Date.now();
    if (isNaN(start) || isNaN(end)) return part.elapsed_s || 0;
    return Math.max(0, (end - start) / 1000);
  }

  // In the page's language ("12 s", "12초"), from the catalogue like every other word.
  function duration(s) {
    const whole = Math.round(s);
    if (whole < 60) return t("plan_seconds", "{seconds} s", { seconds: whole });
    return t("plan_minutes", "{minutes} min {seconds} s",
      { minutes: Math.floor(whole / 60), seconds: whole % 60 });
  }

  async function retry(missionId, button) {
    button.disabled = true;
    const response = await fetch("/api/missions/" + missionId + "/retry", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: "{}",
    });
    if (!response.ok) button.disabled = false;
  }

  function draw(card, plan) {
    card.replaceChildren();
    card.dataset.status = plan.status;
    const head = el("div", "plan-head");
    head.appendChild(el("strong", null, t("plan_of", "Plan of #{seq}", { seq: plan.label || plan.seq })));
    head.appendChild(el("span", "plan-status " + plan.status, state(plan.status)));
    card.appendChild(head);
    const list = el("ul", "plan-parts");
    for (const part of plan.delegates) {
      const live = part.status === "queued" || part.status === "working";
      const row = el("li", "plan-part " + part.status + (live ? " live" : ""));
      row.dataset.mission = part.mission;
      row.dataset.status = part.status;
      const who = el("a", "plan-who", part.employee);
      who.href = part.url;
      row.appendChild(who);
      const task = el("span", "plan-task", part.task);
      // The model's words, rendered and sanitised by the server (push/markdown.py).
      if (typeof part.task_html === "string" && part.task_html) task.innerHTML = part.task_html;
      row.appendChild(task);
      row.appendChild(el("span", "plan-state", state(part.status)));
      const time = el("span", "plan-time", duration(seconds(part)));
      time.dataset.elapsed = "";
      row.appendChild(time);
      if (part.status === "failed" || part.status === "stopped") {
        // A part stopped with its plan can be started again like a failed one.
        if (part.error) row.appendChild(el("span", "plan-error", part.error));
        const button = el("button", "retry", t("retry", "Retry"));
        button.type = "button";
        button.addEventListener("click", () => retry(part.mission, button));
        row.appendChild(button);
      }
      list.appendChild(row);
    }
    card.appendChild(list);
    const synthesis = plan.synthesis
      ? t("plan_summing_up", "Summing up: {status}", { status: state(plan.synthesis.status) })
      : plan.status === "stopped"
        ? t("plan_not_summed_up", "Stopped: not summed up (retry a part to go on)")
        : t("plan_summing_up_later", "Summing up when everyone is done");
    card.appendChild(el("p", "plan-synthesis", synthesis));
    card.appendChild(
      el("p", "plan-cost", t("plan_tokens", "{prompt} prompt + {completion} completion tokens",
        { prompt: plan.prompt_tokens, completion: plan.completion_tokens })),
    );
    card._plan = plan;
  }

  async function load(id) {
    const response = await fetch("/api/missions/" + id + "/plan", { credentials: "same-origin" });
    if (!response.ok) return;
    const plan = await response.json();
    const newer = latest.get(id);
    // A frame that came meanwhile is at least as new as this answer.
    if (!newer) { latest.set(id, plan); draw(cards.get(id), plan); }
  }

  function attach(item) {
    const id = item.dataset.plan;
    if (!id || cards.has(id)) return;
    const card = el("div", "plan-card");
    card.dataset.plan = id;
    item.appendChild(card);
    cards.set(id, card);
    if (latest.has(id)) draw(card, latest.get(id));
    else load(id);
  }

  new MutationObserver((records) => {
    for (const record of records) {
      record.addedNodes.forEach((node) => {
        if (node.nodeType === 1 && node.dataset && node.dataset.plan) attach(node);
      });
    }
  }).observe(timeline, { childList: true });
  timeline.querySelectorAll("li[data-plan]").forEach(attach);

  document.addEventListener("office:frame", (event) => {
    const frame = event.detail;
    if (!frame || frame.type !== "plan") return;
    const id = String(frame.plan.mission);
    latest.set(id, frame.plan);
    const card = cards.get(id);
    if (card) draw(card, frame.plan);
  });

  // The elapsed time of parts still running moves on between frames.
  setInterval(() => {
    for (const card of cards.values()) {
      const plan = card._plan;
      if (!plan || plan.status === "done") continue;
      card.querySelectorAll("li.plan-part").forEach((row, index) => {
        const part = plan.delegates[index];
        const time = row.querySelector("[data-elapsed]");
        if (part && time && !part.finished_at) time.textContent = duration(seconds(part));
      });
    }
  }, 1000);
})();
