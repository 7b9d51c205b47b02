// The document library: upload (with progress), the list with each document's indexing status, delete.
import { api, at, esc, headers } from "./api.js";
import { t } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
const MAX_MB = parseFloat(document.body.dataset.maxUploadMb) || 50;
let pollTimer = null;
let docs = [];

/** The documents last listed (the source panel finds page counts and ids here). */
export const known = () => docs;

const statusLabel = (s) => (["queued", "indexing", "indexed", "failed"].includes(s) ? t(s) : s);

function render() {
  $("#docs-empty").hidden = docs.length > 0;
  $("#docs tbody").innerHTML = docs.map((d) => `
    <tr data-id="${esc(d.id)}" data-status="${esc(d.status)}">
      <td class="file"><span class="name">${esc(d.file)}</span>${d.kind ? ` <span class="muted kind">${esc(d.kind)}${d.pages ? ` · ${d.pages}p` : ""}</span>` : ""}
        ${d.message ? `<div class="${d.status === "failed" ? "err" : "muted"} small">${esc(d.message)}</div>` : ""}</td>
      <td class="state"><span class="badge ${esc(d.status)}">${esc(statusLabel(d.status))}</span></td>
      <td class="num">${d.chunks ?? "—"}</td>
      <td><button class="delete" data-id="${esc(d.id)}" data-file="${esc(d.file)}">${esc(t("delete"))}</button></td>
    </tr>`).join("");
  const byId = Object.fromEntries(docs.map((d) => [d.id, d]));
  for (const li of document.querySelectorAll("#uploads li[data-id]")) {  // each upload follows its document
    const d = byId[li.dataset.id];
    const msg = li.querySelector(".msg");
    if (!d || li.dataset.already) continue;
    msg.className = d.status === "failed" ? "msg small err" : "msg small muted";
    msg.textContent = d.status === "failed" ? d.message : `${t("uploaded")} · ${statusLabel(d.status)}`;
  }
}

/** List the documents again (and again each second while one is being indexed). */
export async function refresh() {
  clearTimeout(pollTimer);
  try {
    docs = await api(at("/documents"));
  } catch (e) {
    $("#docs tbody").innerHTML = `<tr><td colspan="4" class="err">${esc(e.message)}</td></tr>`;
    return;
  }
  render();
  if (docs.some((d) => d.status === "queued" || d.status === "indexing")) pollTimer = setTimeout(refresh, 1000);
}

export const relabel = render;

function upload(file) {
  const li = document.createElement("li");
  li.innerHTML = `<div class="name">${esc(file.name)}</div><progress max="100" value="0"></progress><div class="msg small muted"></div>`;
  $("#uploads").prepend(li);
  const bar = li.querySelector("progress");
  const msg = li.querySelector(".msg");
  const fail = (text) => { msg.className = "msg small err"; msg.textContent = text; bar.remove(); };
  if (file.size > MAX_MB * 1024 * 1024) {
    fail(t("over_limit", { mb: MAX_MB }));
    return;
  }
  const form = new FormData();
  form.append("file", file, file.name);
  const xhr = new XMLHttpRequest();
  xhr.open("POST", at("/documents"));
  for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
  xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) bar.value = (100 * ev.loaded) / ev.total; };
  xhr.onload = () => {
    let data = null;
    try { data = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
    if (xhr.status >= 200 && xhr.status < 300) {
      bar.value = 100;
      msg.textContent = data.already_indexed ? t("already_indexed") : `${t("uploaded")} · ${statusLabel(data.status)}`;
      li.dataset.id = data.id;
      if (data.already_indexed) li.dataset.already = "1";
    } else {
      fail(data && data.error ? `${data.error.message} (${data.error.code})` : `HTTP ${xhr.status}`);
    }
    refresh();
  };
  xhr.onerror = () => fail(t("connection_failed"));
  xhr.send(form);
}

export function init() {
  $("#max-mb").textContent = MAX_MB;
  const uploadAll = (files) => { for (const f of files) upload(f); };
  $("#file-input").addEventListener("change", (ev) => { uploadAll(ev.target.files); ev.target.value = ""; });
  const drop = $("#drop");
  drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (ev) => { ev.preventDefault(); drop.classList.remove("over"); uploadAll(ev.dataTransfer.files); });
  $("#docs").addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button.delete");
    if (!btn || !confirm(t("confirm_delete", { file: btn.dataset.file }))) return;
    btn.disabled = true;
    try {
      await api(at(`/documents/${encodeURIComponent(btn.dataset.id)}`), { method: "DELETE" });
    } catch (e) {
      alert(e.message);
    }
    refresh();
  });
}
