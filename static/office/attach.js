// Files for the next instruction (docs/design.md §4a): chosen with "Attach" or dropped on
// the composer, each uploaded at once (POST /api/channels/<id>/attachments) and shown as a
// chip with its name, removable until it is sent. chat.js takes the uploaded ones with the
// instruction (`OfficeAttach.take()`) and gives them back if the instruction is refused,
// so a refused send loses no file. Every text is inserted as text.
"use strict";

(function () {
  const composer = document.getElementById("composer");
  const input = document.getElementById("attach-input");
  const button = document.getElementById("attach");
  const list = document.getElementById("attached");
  if (!composer || !input || !button || !list) return;
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const ui = JSON.parse(document.getElementById("ui").textContent);
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  const lang = document.documentElement.lang || undefined;

  function t(key, values) {
    return String(ui[key] || key).replace(/\{(\w+)\}/g, (all, name) =>
      values && values[name] !== undefined ? String(values[name]) : all);
  }

  function size(bytes) {
    return bytes >= 1024 * 1024
      ? (bytes / 1024 / 1024).toLocaleString(lang, { maximumFractionDigits: 1 }) + " MB"
      : Math.max(1, Math.round(bytes / 1024)).toLocaleString(lang) + " KB";
  }

  // Each chip's file: { id (once uploaded), name, size, kind, error, uploading, chip }.
  let files = [];

  function draw(file) {
    const chip = file.chip || document.createElement("li");
    file.chip = chip;
    chip.replaceChildren();
    chip.className = "file" + (file.error ? " failed" : "") + (file.uploading ? " uploading" : "");
    const label = document.createElement("span");
    label.className = "file-name";
    label.textContent = file.error ? t("upload_failed", { error: file.error })
      : file.uploading ? t("uploading", { name: file.name })
      : file.name + " · " + size(file.size);
    chip.appendChild(label);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "small remove-file";
    remove.textContent = "×";
    remove.setAttribute("aria-label", t("remove_file", { name: file.name }));
    remove.addEventListener("click", () => discard(file));
    chip.appendChild(remove);
    if (!chip.parentNode) list.appendChild(chip);
    list.hidden = files.length === 0;
  }

  function discard(file) {
    files = files.filter((f) => f !== file);
    if (file.chip) file.chip.remove();
    list.hidden = files.length === 0;
    if (file.id) {
      fetch("/api/attachments/" + file.id, {
        method: "DELETE", credentials: "same-origin", headers: { "X-CSRFToken": csrf },
      }).catch(() => { /* an upload never sent is harmless */ });
    }
  }

  async function upload(blob) {
    const file = { name: blob.name || "file", size: blob.size, uploading: true };
    files.push(file);
    draw(file);
    const form = new FormData();
    form.append("file", blob, file.name);
    try {
      const response = await fetch("/api/channels/" + boot.channel + "/attachments", {
        method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf }, body: form,
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.message || data.detail || response.statusText);
      Object.assign(file, { id: data.id, name: data.name, kind: data.kind, size: data.size });
    } catch (error) {
      file.error = error.message;
    }
    file.uploading = false;
    if (files.includes(file)) draw(file);
  }

  function add(fileList) {
    Array.from(fileList || []).forEach(upload);
  }

  button.addEventListener("click", () => input.click());
  input.addEventListener("change", () => { add(input.files); input.value = ""; });
  composer.addEventListener("dragover", (event) => {
    if (event.dataTransfer && Array.from(event.dataTransfer.types).includes("Files")) {
      event.preventDefault();
      composer.classList.add("dropping");
    }
  });
  composer.addEventListener("dragleave", () => composer.classList.remove("dropping"));
  composer.addEventListener("drop", (event) => {
    composer.classList.remove("dropping");
    if (!event.dataTransfer || !event.dataTransfer.files.length) return;
    event.preventDefault();
    add(event.dataTransfer.files);
  });

  window.OfficeAttach = {
    // Whether a file is still on its way: the instruction waits for it.
    busy: () => files.some((f) => f.uploading),
    // The uploaded files, for the context panel's preview of the next mission.
    ids: () => files.filter((f) => f.id).map((f) => f.id),
    names: () => files.filter((f) => f.id).map((f) => f.name),
    // The uploaded files go with the instruction: the chips go (failed ones stay, to be
    // removed or read).
    take() {
      const ready = files.filter((f) => f.id);
      ready.forEach((f) => f.chip && f.chip.remove());
      files = files.filter((f) => !f.id);
      list.hidden = files.length === 0;
      return ready.map((f) => ({ id: f.id, name: f.name, size: f.size, kind: f.kind }));
    },
    // A refused instruction's files come back, to be sent again.
    giveBack(taken) {
      (taken || []).forEach((f) => {
        if (files.some((g) => g.id === f.id)) return;
        const file = Object.assign({}, f);
        files.push(file);
        draw(file);
      });
    },
  };
})();
