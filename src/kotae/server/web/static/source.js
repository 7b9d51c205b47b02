// The source panel: beside the answer on wide screens (a column of the layout, never over the answer),
// full-screen on phones. The cited page as an image with the passage highlighted (zoom, previous/next
// page), or the page's text for kinds without a page renderer.
import { at, errorOf, esc, fmt, headers } from "./api.js";
import { t } from "./i18n.js";
import { known } from "./documents.js";

const $ = (sel) => document.querySelector(sel);
const ZOOMS = [0.5, 0.75, 1, 1.5, 2, 3];
const view = { docId: null, page: 1, citedPage: 1, chunkId: null, pages: null, zoom: 2, onPick: null, shown: null };
let imageUrl = null;

const OCR_BADGE = () => `<span class="badge ocr" title="${esc(t("ocr_title"))}">OCR</span>`;
export const ocrBadge = (x) => (x && x.ocr ? ` ${OCR_BADGE()}` : "");

function setOpen(open) {
  $("#source-panel").hidden = !open;
  document.querySelector("main").classList.toggle("with-source", open);
}

export function close() { setOpen(false); }

/**
 * Show a cited source and/or a retrieval hit (either may be missing). `onPick(chunkId)`, when given,
 * offers "this is the right passage" for the feedback of the answer it came from.
 */
export function open(source, hit, onPick) {
  const h = hit || {};
  const s = source || h;
  setOpen(true);
  view.shown = { source, hit };
  $("#src-n").textContent = source ? `[${source.n}]` : `#${h.rank}`;
  $("#src-file").textContent = s.file;
  $("#src-page").textContent = s.page;
  $("#src-heading").textContent = s.heading || "—";
  $("#src-passage").textContent = h.text || (source && source.excerpt) || "";
  const ocr = Boolean((source && source.ocr) || h.ocr);
  $("#src-ocr").hidden = !ocr;
  $("#src-ocr-note").hidden = !ocr;
  $("#src-scores").innerHTML = [[t("similarity"), s.similarity], ["BM25", s.bm25], [t("fused"), s.fused],
    [t("rerank"), s.rerank], ["dense rank", h.dense_rank], ["keyword rank", h.keyword_rank]]
    .map(([k, v], i) => `<tr><td>${esc(k)}</td><td>${i >= 4 ? (v ?? "—") : fmt(v)}</td></tr>`).join("");
  const chunkId = (source && source.chunk_id) || h.chunk_id;
  const doc = h.doc_id ? known().find((d) => d.id === h.doc_id) : known().find((d) => d.file === s.file);
  Object.assign(view, { docId: h.doc_id || (doc && doc.id) || null, page: s.page, citedPage: s.page, chunkId,
    pages: doc && doc.pages ? doc.pages : null, onPick });
  const pick = $("#src-pick");
  pick.hidden = !onPick;
  pick.disabled = false;
  pick.textContent = t("right_passage");
  showPage();
  $("#source-panel").scrollTop = 0;
}

async function showPage() {
  const img = $("#src-image");
  const text = $("#src-text");
  const note = $("#src-image-note");
  img.hidden = true;
  img.removeAttribute("src");
  img.dataset.highlights = "";
  text.hidden = true;
  text.textContent = "";
  if (imageUrl) URL.revokeObjectURL(imageUrl);
  imageUrl = null;
  $("#src-nav").hidden = !view.docId;
  if (!view.docId) { note.textContent = ""; return; }
  $("#src-at").textContent = view.pages ? `${view.page} / ${view.pages}` : String(view.page);
  $("#src-prev").disabled = view.page <= 1;
  $("#src-next").disabled = view.pages !== null && view.page >= view.pages;
  const cited = view.page === view.citedPage;
  const mark = cited ? `?highlight=${encodeURIComponent(view.chunkId)}` : "";
  note.textContent = t("loading_page");
  const asked = view.page;
  try {
    const res = await fetch(at(`/documents/${encodeURIComponent(view.docId)}/pages/${asked}.png${mark}`), { headers: headers() });
    if (asked !== view.page) return;  // the user moved on meanwhile
    if (res.status === 404 && (await res.clone().json().catch(() => ({}))).error?.code === "no_page_image") {
      await showPageText(asked, mark);
      return;
    }
    if (!res.ok) throw new Error(await errorOf(res));
    img.dataset.highlights = res.headers.get("X-Kotae-Highlights") || "0";
    imageUrl = URL.createObjectURL(await res.blob());
    img.src = imageUrl;
    img.hidden = false;
    zoomTo(view.zoom);
    note.textContent = cited ? "" : t("other_page", { page: view.citedPage });
  } catch (e) {
    note.textContent = e.message;
  }
}

// Kinds without a page renderer (DOCX, XLSX, PPTX, CSV, text, HTML): the page's text as indexed, passage marked.
async function showPageText(page, mark) {
  const note = $("#src-image-note");
  const box = $("#src-text");
  $("#src-zoom").hidden = true;
  const res = await fetch(at(`/documents/${encodeURIComponent(view.docId)}/pages/${page}/text${mark}`), { headers: headers() });
  if (!res.ok) { note.textContent = await errorOf(res); return; }
  const data = await res.json();
  let html = "", pos = 0;
  for (const [a, b] of data.highlights) {
    html += esc(data.text.slice(pos, a)) + "<mark>" + esc(data.text.slice(a, b)) + "</mark>";
    pos = b;
  }
  box.innerHTML = html + esc(data.text.slice(pos));
  box.hidden = false;
  note.textContent = t("no_renderer") + (page === view.citedPage ? "" : " " + t("other_page", { page: view.citedPage }));
  const first = box.querySelector("mark");
  if (first) first.scrollIntoView({ block: "center" });
}

function zoomTo(i) {
  view.zoom = Math.max(0, Math.min(ZOOMS.length - 1, i));
  const img = $("#src-image");
  img.style.width = `${ZOOMS[view.zoom] * 100}%`;
  img.dataset.zoom = String(ZOOMS[view.zoom]);
  $("#src-zoom").hidden = false;
  $("#src-zoom-level").textContent = `${Math.round(ZOOMS[view.zoom] * 100)}%`;
  $("#src-zoom-out").disabled = view.zoom === 0;
  $("#src-zoom-in").disabled = view.zoom === ZOOMS.length - 1;
}

function turnPage(step) {
  const next = view.page + step;
  if (next < 1 || (view.pages !== null && next > view.pages)) return;
  view.page = next;
  showPage();
}

export function init() {
  $("#src-close").addEventListener("click", close);
  document.addEventListener("keydown", (ev) => {
    if ($("#source-panel").hidden || ev.target.closest("input, textarea, select")) return;
    if (ev.key === "Escape") close();
    else if (ev.key === "ArrowLeft") turnPage(-1);
    else if (ev.key === "ArrowRight") turnPage(1);
  });
  $("#src-prev").addEventListener("click", () => turnPage(-1));
  $("#src-next").addEventListener("click", () => turnPage(1));
  $("#src-zoom-in").addEventListener("click", () => zoomTo(view.zoom + 1));
  $("#src-zoom-out").addEventListener("click", () => zoomTo(view.zoom - 1));
  $("#src-zoom-fit").addEventListener("click", () => zoomTo(ZOOMS.indexOf(1)));
  $("#src-image").addEventListener("dblclick", () => zoomTo(view.zoom === ZOOMS.indexOf(1) ? ZOOMS.indexOf(2) : ZOOMS.indexOf(1)));
  $("#src-pick").addEventListener("click", (ev) => {
    if (!view.onPick) return;
    view.onPick(view.chunkId);
    ev.target.textContent = t("right_passage_set");
    ev.target.disabled = true;
  });
}

/** Relabel what the panel shows after a language switch. */
export function relabel() {
  if (!$("#source-panel").hidden && view.shown) {
    const { source, hit } = view.shown;
    const page = view.page;
    open(source, hit, view.onPick);
    if (page !== view.page) { view.page = page; showPage(); }
  }
}
