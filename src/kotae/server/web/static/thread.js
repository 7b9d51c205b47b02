// The thread: each question and its answer stay on the page (a conversation on servers with
// /conversations; one question at a time on servers without). Citations open the source panel.
import { api, at, esc, fmt, pageLabel, stream } from "./api.js";
import { t } from "./i18n.js";
import * as settings from "./settings.js";
import * as source from "./source.js";
import { feedbackBar, initFeedback } from "./feedback.js";
import { COPY } from "./icons.js";

const $ = (sel) => document.querySelector(sel);
export const caps = { conversations: false, feedback: false };
const state = { turns: [], conversation: null, busy: false, onConversation: () => {} };

export const conversation = () => state.conversation;

function chips(text, sources) {
  const known = new Set((sources || []).map((s) => String(s.n)));
  return esc(text).replace(/\[(\d+)\]/g, (m, n) =>
    `<button type="button" class="chip" data-n="${n}" ${known.has(n) ? "" : "disabled"}>[${n}]</button>`);
}

function retrievalHtml(turn) {
  const g = turn.gate;
  if (!g) return "";
  const rows = turn.hits.map((h) => `
    <tr data-chunk="${esc(h.chunk_id)}">
      <td class="num">${h.rank}</td><td class="file">${esc(h.file)}${source.ocrBadge(h)}</td><td class="num">${h.page}</td>
      <td>${esc(h.heading || "")}</td><td class="num">${fmt(h.similarity)}</td><td class="num">${fmt(h.bm25)}</td>
      <td class="num">${fmt(h.fused)}</td><td class="num">${fmt(h.rerank)}</td>
      <td class="text">${esc(h.text.length > 220 ? h.text.slice(0, 219) + "…" : h.text)}</td>
    </tr>`).join("") || `<tr><td colspan="9" class="muted">${esc(t("no_hits"))}</td></tr>`;
  return `<details class="retrieval"><summary>${esc(t("retrieval"))} <span class="count">(${turn.hits.length})</span></summary>
    <p class="gate small"><b>${esc(g.found ? t("answerable") : t("not_found"))}</b> —
      ${esc(g.reason)} · similarity ${fmt(g.similarity)} · margin ${fmt(g.margin)} · coverage ${fmt(g.coverage)}
      ${turn.notices.length ? `<br><span class="muted">${esc(turn.notices.join(" · "))}</span>` : ""}</p>
    <div class="scroll"><table class="hits"><thead><tr>
      <th>#</th><th>${esc(t("file"))}</th><th>${esc(t("page"))}</th><th>${esc(t("heading"))}</th>
      <th title="dense cosine">${esc(t("similarity"))}</th><th>BM25</th><th>${esc(t("fused"))}</th>
      <th>${esc(t("rerank"))}</th><th>${esc(t("passage"))}</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

function answerHtml(turn) {
  const a = turn.answer;
  if (!a) {
    return `<p class="status muted">${turn.error ? `<span class="error">${esc(turn.error)}</span>` : esc(turn.status ? t(turn.status) : "")}</p>
      <div class="answer" aria-live="polite">${chips(turn.text || "", null)}</div>`;
  }
  if (!a.found_in_docs) {
    const reason = (turn.gate && (turn.gate.explanation || turn.gate.reason))
      || a.notices.find((n) => n.startsWith("not found")) || "";
    return `<div class="not-found"><p class="big">${esc(t("dont_know"))}</p><p>${esc(t("not_in_docs"))}</p>
      <dl><dt>${esc(t("searched"))}</dt><dd class="nf-query">${esc(turn.standalone || turn.question)}</dd>
      <dt>${esc(t("conditions"))}</dt><dd class="nf-settings">${esc(turn.settings)}</dd>
      <dt>${esc(t("why"))}</dt><dd class="nf-reason">${esc(reason)}</dd></dl></div>`;
  }
  const incomplete = a.completeness === "partial" || a.completeness === "blank";
  const total = a.timings_ms && a.timings_ms.total;
  return `${incomplete ? `<p class="partial"><strong>${esc(t(a.completeness === "blank" ? "blank" : "partial"))}</strong>
      ${esc(t("missing"))} ${esc((a.missing || []).join(" · "))}</p>` : ""}
    <div class="answer" aria-live="polite">${chips(a.answer, a.sources)}</div>
    <ol class="sources" aria-label="${esc(t("sources"))}">${a.sources.map((s) => `
      <li><button type="button" class="src" data-n="${s.n}">[${s.n}] <span class="name">${esc(s.file)}</span> ${pageLabel(s.file, s.page)}${source.ocrBadge(s)}${s.heading ? " › " + esc(s.heading) : ""}</button></li>`).join("")}</ol>
    <p class="notices muted small">${esc([...a.notices, total ? `${Math.round(total)} ms · ${a.mode}` : a.mode].join(" · "))}</p>`;
}

function turnHtml(turn, i) {
  const rewritten = turn.standalone && turn.standalone !== turn.question;
  const done = Boolean(turn.answer);
  return `<article class="turn" data-i="${i}">
    <div class="q"><p class="question">${esc(turn.question)}</p>
      ${rewritten ? `<p class="standalone muted small">${esc(t("searched"))}: ${esc(turn.standalone)}</p>` : ""}</div>
    <div class="a">
      ${done && turn.answer.found_in_docs ? `<div class="tools"><button type="button" class="copy" title="${esc(t("copy"))}">${COPY} <span>${esc(t("copy"))}</span></button></div>` : ""}
      ${answerHtml(turn)}
      ${done && caps.feedback ? feedbackBar(turn) : ""}
      ${retrievalHtml(turn)}
    </div></article>`;
}

function renderTurn(i) {
  const old = document.querySelector(`#thread .turn[data-i="${i}"]`);
  const html = turnHtml(state.turns[i], i);
  if (old) old.outerHTML = html;
  else $("#thread").insertAdjacentHTML("beforeend", html);
}

/** Draw the whole thread again (after a language switch, or a conversation opened). */
export function render() {
  $("#thread").innerHTML = state.turns.map(turnHtml).join("");
  $("#start-hint").hidden = state.turns.length > 0;
  $("#chat-title").textContent = state.conversation ? (state.conversation.title || t("untitled")) : "";
}

/** Start afresh: an empty thread, and (with conversations) a new conversation at the first question. */
export function reset() {
  state.turns = [];
  state.conversation = null;
  source.close();
  render();
}

/** Show a stored conversation, its messages as turns. */
export async function openConversation(id) {
  const c = await api(at(`/conversations/${encodeURIComponent(id)}`));
  state.conversation = { id: c.id, title: c.title };
  state.turns = (c.messages || []).map((m) => ({
    question: m.question, standalone: m.standalone, answer: m.answer, messageId: m.id, hits: [], byChunk: {},
    gate: null, notices: [], settings: "", feedback: {},
  }));
  source.close();
  render();
  const last = $("#thread .turn:last-child");
  if (last) last.scrollIntoView({ block: "end" });
}

async function ask(ev) {
  ev.preventDefault();
  const question = $("#question").value.trim();
  if (!question || state.busy) return;
  const s = settings.load();
  const file = $("#file-filter").value.trim();
  const body = { question, mode: s.mode, top_k: s.topK, filters: file ? { file } : null };
  if (!caps.conversations) state.turns = [];  // one question at a time
  const turn = { question, settings: settings.describe(s, file), hits: [], byChunk: {}, gate: null, notices: [],
    answer: null, text: "", status: "searching", feedback: {} };
  state.turns.push(turn);
  const i = state.turns.length - 1;
  render();
  $("#question").value = "";
  state.busy = true;
  $("#ask").disabled = true;
  const on = (name, payload) => {
    if (name === "retrieval") {
      Object.assign(turn, { hits: payload.hits, gate: payload.gate, notices: payload.notices, status: "answering",
        byChunk: Object.fromEntries(payload.hits.map((h) => [h.chunk_id, h])) });
    } else if (name === "token") {
      turn.text += payload.text;
    } else if (name === "answer") {
      turn.answer = payload;
      turn.messageId = payload.message_id;
      turn.standalone = payload.standalone;
    }
    renderTurn(i);
  };
  try {
    if (caps.conversations) {
      if (!state.conversation) {
        const c = await api(at("/conversations"), { method: "POST", json: {} });
        state.conversation = { id: c.id, title: c.title };
      }
      await stream(at(`/conversations/${encodeURIComponent(state.conversation.id)}/messages/stream`), body, on);
    } else {
      await stream(at("/query/stream"), body, on);
    }
  } catch (e) {
    turn.error = e.message;
    renderTurn(i);
  } finally {
    state.busy = false;
    $("#ask").disabled = false;
  }
  if (caps.conversations) state.onConversation(state.conversation);
}

function openNumbered(turn, n) {
  const a = turn.answer;
  const s = a && a.sources.find((x) => String(x.n) === String(n));
  if (s) source.open(s, turn.byChunk[s.chunk_id], pickFor(turn));
}

const pickFor = (turn) => (caps.feedback && turn.answer ? (chunkId) => { turn.feedback.pick = chunkId; renderTurn(state.turns.indexOf(turn)); } : null);

async function copy(turn, btn) {
  const a = turn.answer;
  const text = `${a.answer}\n\n${a.sources.map((s) => `[${s.n}] ${s.file} ${pageLabel(s.file, s.page)}`).join("\n")}`.trim();
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {  // no clipboard permission (plain http off localhost): the old way
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  btn.querySelector("span").textContent = t("copied");
  btn.classList.add("done");
}

/** Wire the form and the thread; `onConversation(c)` runs after each answer in a conversation. */
export function init(onConversation) {
  state.onConversation = onConversation;
  $("#ask-form").addEventListener("submit", ask);
  $("#question").addEventListener("keydown", (ev) => {  // Enter asks, Shift+Enter breaks the line
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); $("#ask-form").requestSubmit(); }
  });
  const turnOf = (el) => state.turns[Number(el.closest(".turn").dataset.i)];
  $("#thread").addEventListener("click", (ev) => {
    const chip = ev.target.closest("button.chip, button.src");
    if (chip) { openNumbered(turnOf(chip), chip.dataset.n); return; }
    const row = ev.target.closest("tr[data-chunk]");
    if (row) { const turn = turnOf(row); source.open(null, turn.byChunk[row.dataset.chunk], pickFor(turn)); return; }
    const cp = ev.target.closest("button.copy");
    if (cp) copy(turnOf(cp), cp);
  });
  initFeedback($("#thread"), turnOf, (turn) => renderTurn(state.turns.indexOf(turn)));
}

/** A conversation was renamed or deleted elsewhere (the history list). */
export function renamed(id, title) {
  if (state.conversation && state.conversation.id === id) { state.conversation.title = title; render(); }
}
export function gone(id) { if (state.conversation && state.conversation.id === id) reset(); }
