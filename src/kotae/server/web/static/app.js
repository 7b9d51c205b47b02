// kotae web UI: plain JS over the same HTTP API a script would use (no build step, no CDN).
"use strict";

const $ = (sel) => document.querySelector(sel);
const body = document.body;
const NEEDS_KEY = body.dataset.needsKey === "true";
const MAX_MB = parseFloat(body.dataset.maxUploadMb) || 50;
const STATUS = {
  queued: "待機中 / queued", indexing: "索引中 / indexing", indexed: "完了 / indexed", failed: "失敗 / failed",
};
const state = { hits: [], byChunk: {}, answer: null, question: "", settings: "", gate: null };

// --- HTTP -------------------------------------------------------------------------------------
function headers(extra) {
  const h = Object.assign({}, extra || {});
  const key = localStorage.getItem("kotae.apiKey");
  if (key) h["X-API-Key"] = key;
  return h;
}

async function errorOf(res) {
  try {
    const data = await res.json();
    if (data && data.error) return `${data.error.message} (${data.error.code})`;
  } catch (e) { /* not JSON */ }
  return `HTTP ${res.status}`;
}

async function api(path, opts) {
  const res = await fetch(path, Object.assign({}, opts, { headers: headers((opts || {}).headers) }));
  if (!res.ok) throw new Error(await errorOf(res));
  return res.json();
}

// how a page is named in a citation, as kotae.types.page_label names it
function pageLabel(file, page) {
  const ext = String(file || "").toLowerCase().split(".").pop();
  return ({ xlsx: "sheet ", xlsm: "sheet ", pptx: "slide " }[ext] || "p.") + page;
}

function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// a source whose text was read by OCR (it may hold misread characters)
const OCR_BADGE = `<span class="badge ocr" title="OCRで読み取った文字 / text read by OCR">OCR</span>`;
const ocrBadge = (x) => (x && x.ocr ? ` ${OCR_BADGE}` : "");

function fmt(x) { return x === null || x === undefined ? "—" : Number(x).toFixed(4).replace(/\.?0+$/, ""); }

// --- documents --------------------------------------------------------------------------------
let pollTimer = null;

async function refreshCalibration() {
  try {
    const h = await api("/health");
    $("#calibration").textContent = h.calibration && h.calibration.summary
      ? `判定の較正 / refusal gate: ${h.calibration.summary}` : "";
  } catch (e) { /* the documents list shows the error */ }
}

async function refreshDocs() {
  clearTimeout(pollTimer);
  refreshCalibration();
  let docs;
  try {
    docs = await api("/documents");
  } catch (e) {
    $("#docs tbody").innerHTML = `<tr><td colspan="4" class="err">${esc(e.message)}</td></tr>`;
    return;
  }
  $("#docs-empty").hidden = docs.length > 0;
  $("#docs tbody").innerHTML = docs.map((d) => `
    <tr data-id="${esc(d.id)}" data-status="${esc(d.status)}">
      <td class="file">${esc(d.file)}${d.kind ? ` <span class="muted">${esc(d.kind)}${d.pages ? ` · ${d.pages}p` : ""}</span>` : ""}
        ${d.message ? `<div class="${d.status === "failed" ? "err" : "muted"} small">${esc(d.message)}</div>` : ""}</td>
      <td><span class="badge ${esc(d.status)}">${esc(STATUS[d.status] || d.status)}</span></td>
      <td>${d.chunks ?? "—"}</td>
      <td><button class="delete" data-id="${esc(d.id)}" data-file="${esc(d.file)}" title="削除 / Delete">削除 / Delete</button></td>
    </tr>`).join("");
  const byId = Object.fromEntries(docs.map((d) => [d.id, d]));
  for (const li of document.querySelectorAll("#uploads li[data-id]")) {  // each upload follows its document
    const d = byId[li.dataset.id];
    const msg = li.querySelector(".msg");
    if (!d || li.dataset.already) continue;
    msg.className = d.status === "failed" ? "msg small err" : "msg small muted";
    msg.textContent = d.status === "failed" ? d.message : `送信済み / uploaded · ${STATUS[d.status] || d.status}`;
  }
  if (docs.some((d) => d.status === "queued" || d.status === "indexing")) {
    pollTimer = setTimeout(refreshDocs, 1000);
  }
}

$("#docs").addEventListener("click", async (ev) => {
  const btn = ev.target.closest("button.delete");
  if (!btn) return;
  if (!confirm(`「${btn.dataset.file}」を削除しますか？ / Delete ${btn.dataset.file}?`)) return;
  btn.disabled = true;
  try {
    await api(`/documents/${encodeURIComponent(btn.dataset.id)}`, { method: "DELETE" });
  } catch (e) {
    alert(e.message);
  }
  refreshDocs();
});

function upload(file) {
  const li = document.createElement("li");
  li.innerHTML = `<div>${esc(file.name)}</div><progress max="100" value="0"></progress><div class="msg small muted"></div>`;
  $("#uploads").prepend(li);
  const bar = li.querySelector("progress");
  const msg = li.querySelector(".msg");
  const fail = (text) => { msg.className = "msg small err"; msg.textContent = text; bar.remove(); };
  if (file.size > MAX_MB * 1024 * 1024) {
    fail(`${MAX_MB} MB を超えています / over the ${MAX_MB} MB limit`);
    return;
  }
  const form = new FormData();
  form.append("file", file, file.name);
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/documents");
  for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
  xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) bar.value = (100 * ev.loaded) / ev.total; };
  xhr.onload = () => {
    let data = null;
    try { data = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
    if (xhr.status >= 200 && xhr.status < 300) {
      bar.value = 100;
      msg.textContent = data.already_indexed
        ? "登録済み / already indexed"
        : `送信済み / uploaded · ${STATUS[data.status] || data.status}`;
      li.dataset.id = data.id;
      if (data.already_indexed) li.dataset.already = "1";
    } else {
      fail(data && data.error ? `${data.error.message} (${data.error.code})` : `HTTP ${xhr.status}`);
    }
    refreshDocs();
  };
  xhr.onerror = () => fail("接続できません / connection failed");
  xhr.send(form);
}

function uploadAll(files) { for (const f of files) upload(f); }

$("#file-input").addEventListener("change", (ev) => { uploadAll(ev.target.files); ev.target.value = ""; });
const drop = $("#drop");
drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (ev) => { ev.preventDefault(); drop.classList.remove("over"); uploadAll(ev.dataTransfer.files); });

// --- asking -----------------------------------------------------------------------------------
function showTab(name) {
  for (const t of ["answer", "retrieval"]) {
    $(`#tab-${t}`).setAttribute("aria-selected", String(t === name));
    $(`#${t}-panel`).hidden = t !== name;
  }
}
$("#tab-answer").addEventListener("click", () => showTab("answer"));
$("#tab-retrieval").addEventListener("click", () => showTab("retrieval"));

function renderAnswer(text, sources) {
  const known = new Set((sources || []).map((s) => String(s.n)));
  $("#answer").innerHTML = esc(text).replace(/\[(\d+)\]/g, (m, n) =>
    `<button type="button" class="chip" data-n="${n}" ${known.has(n) ? "" : "disabled"}>[${n}]</button>`);
}

function renderRetrieval(r) {
  state.hits = r.hits;
  state.byChunk = Object.fromEntries(r.hits.map((h) => [h.chunk_id, h]));
  state.gate = r.gate;
  $("#hit-count").textContent = `(${r.hits.length})`;
  const g = r.gate;
  $("#gate").innerHTML = `<b>${g.found ? "回答可 / answerable" : "わからない / not found"}</b> —
    ${esc(g.reason)} · similarity ${fmt(g.similarity)} · margin ${fmt(g.margin)} · coverage ${fmt(g.coverage)}
    ${r.notices.length ? `<br><span class="muted">${esc(r.notices.join(" · "))}</span>` : ""}`;
  $("#hits tbody").innerHTML = r.hits.map((h) => `
    <tr data-chunk="${esc(h.chunk_id)}">
      <td class="num">${h.rank}</td><td>${esc(h.file)}${ocrBadge(h)}</td><td class="num">${h.page}</td>
      <td>${esc(h.heading || "")}</td><td class="num">${fmt(h.similarity)}</td><td class="num">${fmt(h.bm25)}</td>
      <td class="num">${fmt(h.fused)}</td><td class="num">${fmt(h.rerank)}</td>
      <td class="text">${esc(h.text.length > 220 ? h.text.slice(0, 219) + "…" : h.text)}</td>
    </tr>`).join("") || `<tr><td colspan="9" class="muted">該当なし / no hits</td></tr>`;
}

function renderFinal(a) {
  state.answer = a;
  renderAnswer(a.answer, a.sources);
  $("#not-found").hidden = a.found_in_docs;
  const incomplete = a.found_in_docs && (a.completeness === "partial" || a.completeness === "blank");
  $("#partial").hidden = !incomplete;
  if (incomplete) {
    $("#partial-kind").textContent = a.completeness === "blank"
      ? "空欄 / Left blank:" : "一部のみ / Partial answer:";
    $("#partial-missing").textContent = "資料にないもの / not in the documents — " + (a.missing || []).join(" · ");
  }
  if (!a.found_in_docs) {
    $("#answer").innerHTML = "";
    $("#nf-query").textContent = state.question;
    $("#nf-settings").textContent = state.settings;
    $("#nf-reason").textContent = (state.gate && (state.gate.explanation || state.gate.reason))
      || a.notices.find((n) => n.startsWith("not found")) || "";
  }
  $("#sources").innerHTML = a.sources.map((s) => `
    <li><button type="button" class="src" data-n="${s.n}">[${s.n}] ${esc(s.file)} ${pageLabel(s.file, s.page)}${ocrBadge(s)}${s.heading ? " › " + esc(s.heading) : ""}</button></li>`).join("");
  const total = a.timings_ms && a.timings_ms.total;
  $("#notices").textContent = [...a.notices, total ? `${Math.round(total)} ms · ${a.mode}` : a.mode].join(" · ");
  $("#status").textContent = "";
}

async function ask(ev) {
  ev.preventDefault();
  const question = $("#question").value.trim();
  if (!question) return;
  const mode = $("#mode").value;
  const topK = parseInt($("#top-k").value, 10) || 5;
  const file = $("#file-filter").value.trim();
  Object.assign(state, { question, settings: `${mode}, top_k=${topK}${file ? `, file=${file}` : ""}`, answer: null, gate: null });
  $("#answer").innerHTML = "";
  $("#sources").innerHTML = "";
  $("#notices").textContent = "";
  $("#not-found").hidden = true;
  $("#partial").hidden = true;
  $("#status").textContent = "検索中… / Searching…";
  $("#ask").disabled = true;
  showTab("answer");
  let text = "";
  try {
    const res = await fetch("/query/stream", {
      method: "POST",
      headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ question, mode, top_k: topK, filters: file ? { file } : null }),
    });
    if (!res.ok) throw new Error(await errorOf(res));
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const frame = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let name = "message";
        const data = [];
        for (const line of frame.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
        }
        const payload = data.length ? JSON.parse(data.join("\n")) : null;
        if (name === "retrieval") { renderRetrieval(payload); $("#status").textContent = "回答を作成中… / Answering…"; }
        else if (name === "token") { text += payload.text; renderAnswer(text, null); }
        else if (name === "answer") renderFinal(payload);
        else if (name === "error") throw new Error(`${payload.error.message} (${payload.error.code})`);
      }
    }
  } catch (e) {
    $("#status").innerHTML = `<span class="error">${esc(e.message)}</span>`;
  } finally {
    $("#ask").disabled = false;
  }
}
$("#ask-form").addEventListener("submit", ask);

// --- the source panel -------------------------------------------------------------------------
let imageUrl = null;

async function openSource(source, hit) {
  const panel = $("#source-panel");
  panel.hidden = false;
  const h = hit || {};
  $("#src-n").textContent = source ? `[${source.n}]` : `#${h.rank}`;
  $("#src-file").textContent = (source || h).file;
  $("#src-page").textContent = (source || h).page;
  $("#src-heading").textContent = (source || h).heading || "—";
  $("#src-passage").textContent = h.text || (source && source.excerpt) || "";
  const s = source || h;
  const ocr = Boolean((source && source.ocr) || h.ocr);
  $("#src-ocr").hidden = !ocr;
  $("#src-ocr-note").hidden = !ocr;
  $("#src-scores").innerHTML = [["類似度 / Similarity", s.similarity], ["BM25", s.bm25], ["融合 / Fused", s.fused],
    ["再順位 / Rerank", s.rerank], ["dense rank", h.dense_rank], ["keyword rank", h.keyword_rank]]
    .map(([k, v]) => `<tr><td>${k}</td><td>${k.endsWith("rank") ? (v ?? "—") : fmt(v)}</td></tr>`).join("");
  const img = $("#src-image");
  img.hidden = true;
  img.removeAttribute("src");
  img.dataset.highlights = "";
  if (imageUrl) URL.revokeObjectURL(imageUrl);
  imageUrl = null;
  const note = $("#src-image-note");
  const docId = h.doc_id;
  const chunkId = (source && source.chunk_id) || h.chunk_id;
  if (!docId) { note.textContent = ""; return; }
  note.textContent = "ページを表示中… / Loading the page…";
  const url = `/documents/${encodeURIComponent(docId)}/pages/${s.page}.png?highlight=${encodeURIComponent(chunkId)}`;
  const text = $("#src-text");
  text.hidden = true;
  text.textContent = "";
  try {
    const res = await fetch(url, { headers: headers() });
    if (res.status === 404 && (await res.clone().json().catch(() => ({}))).error?.code === "no_page_image") {
      await showPageText(docId, s.page, chunkId);
      return;
    }
    if (!res.ok) throw new Error(await errorOf(res));
    img.dataset.highlights = res.headers.get("X-Kotae-Highlights") || "0";
    imageUrl = URL.createObjectURL(await res.blob());
    img.src = imageUrl;
    img.hidden = false;
    note.textContent = "";
  } catch (e) {
    note.textContent = e.message;
  }
}

// Kinds without a page renderer (DOCX, XLSX, PPTX, CSV, text, HTML): the page's text as indexed, passage marked.
async function showPageText(docId, page, chunkId) {
  const note = $("#src-image-note");
  const box = $("#src-text");
  const res = await fetch(`/documents/${encodeURIComponent(docId)}/pages/${page}/text?highlight=${encodeURIComponent(chunkId)}`,
    { headers: headers() });
  if (!res.ok) { note.textContent = await errorOf(res); return; }
  const data = await res.json();
  let html = "", at = 0;
  for (const [a, b] of data.highlights) {
    html += esc(data.text.slice(at, a)) + "<mark>" + esc(data.text.slice(a, b)) + "</mark>";
    at = b;
  }
  box.innerHTML = html + esc(data.text.slice(at));
  box.hidden = false;
  note.textContent = "この形式はページ画像を作れないため、読み取った本文を表示しています / "
    + "No page renderer for this type: the page's text as kotae read it is shown";
  const mark = box.querySelector("mark");
  if (mark) mark.scrollIntoView({ block: "center" });
}

function openNumbered(n) {
  const a = state.answer;
  const source = a && a.sources.find((x) => String(x.n) === String(n));
  if (source) openSource(source, state.byChunk[source.chunk_id]);
}

$("#answer").addEventListener("click", (ev) => { const b = ev.target.closest("button.chip"); if (b) openNumbered(b.dataset.n); });
$("#sources").addEventListener("click", (ev) => { const b = ev.target.closest("button.src"); if (b) openNumbered(b.dataset.n); });
$("#hits").addEventListener("click", (ev) => {
  const tr = ev.target.closest("tr[data-chunk]");
  if (tr) openSource(null, state.byChunk[tr.dataset.chunk]);
});
$("#src-close").addEventListener("click", () => { $("#source-panel").hidden = true; });
document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") $("#source-panel").hidden = true; });

// --- start ------------------------------------------------------------------------------------
$("#max-mb").textContent = MAX_MB;
if (NEEDS_KEY) {
  $("#key-box").hidden = false;
  $("#api-key").value = localStorage.getItem("kotae.apiKey") || "";
  $("#api-key").addEventListener("change", (ev) => { localStorage.setItem("kotae.apiKey", ev.target.value); refreshDocs(); });
}
refreshDocs();
