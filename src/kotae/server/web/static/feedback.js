// Feedback on an answer: thumbs up/down, optionally the passage that was right and a corrected answer, POSTed to
// /feedback (stored with the question, the cited chunks and the index version: a golden set in the making).
import { api, at, esc, pageLabel } from "./api.js";
import { t } from "./i18n.js";
import { DOWN, UP } from "./icons.js";

/** The feedback row under a finished answer. `turn.feedback` holds {rating, pick, corrected, sent, error}. */
export function feedbackBar(turn) {
  const f = turn.feedback;
  if (f.sent) return `<div class="feedback sent small muted">${f.rating === "up" ? UP : DOWN} ${esc(t("fb_thanks"))}</div>`;
  const pressed = (r) => `aria-pressed="${f.rating === r}"`;
  const candidates = [...(turn.answer.sources || []).map((s) => ({ id: s.chunk_id, label: `[${s.n}] ${s.file} ${pageLabel(s.file, s.page)}` })),
    ...turn.hits.filter((h) => !(turn.answer.sources || []).some((s) => s.chunk_id === h.chunk_id))
      .map((h) => ({ id: h.chunk_id, label: `#${h.rank} ${h.file} ${pageLabel(h.file, h.page)}` }))];
  if (f.pick && !candidates.some((c) => c.id === f.pick)) candidates.push({ id: f.pick, label: f.pick });
  return `<div class="feedback">
    <button type="button" class="rate" data-rating="up" ${pressed("up")} title="${esc(t("good"))}" aria-label="${esc(t("good"))}">${UP}</button>
    <button type="button" class="rate" data-rating="down" ${pressed("down")} title="${esc(t("bad"))}" aria-label="${esc(t("bad"))}">${DOWN}</button>
    ${f.rating ? `<form class="fb-form">
      <label>${esc(t("fb_pick"))} <select class="fb-pick"><option value="">${esc(t("fb_none"))}</option>
        ${candidates.map((c) => `<option value="${esc(c.id)}" ${c.id === f.pick ? "selected" : ""}>${esc(c.label)}</option>`).join("")}</select></label>
      <label>${esc(t("fb_corrected"))} <textarea class="fb-corrected" rows="2">${esc(f.corrected || "")}</textarea></label>
      <button type="submit" class="primary fb-send">${esc(t("fb_send"))}</button>
      ${f.error ? `<span class="error small">${esc(f.error)}</span>` : ""}
    </form>` : ""}
  </div>`;
}

async function send(turn) {
  const f = turn.feedback;
  const body = { question: turn.question, rating: f.rating, cited: (turn.answer.sources || []).map((s) => s.chunk_id) };
  if (turn.messageId) body.message_id = turn.messageId;
  if (f.pick) body.right_chunk = f.pick;
  if (f.corrected && f.corrected.trim()) body.corrected = f.corrected.trim();
  try {
    const out = await api(at("/feedback"), { method: "POST", json: body });
    Object.assign(f, { sent: true, id: out.id, error: null });
  } catch (e) {
    f.error = e.message;
  }
}

/** Delegate the feedback controls of every turn under `root`. */
export function initFeedback(root, turnOf, redraw) {
  root.addEventListener("click", (ev) => {
    const b = ev.target.closest("button.rate");
    if (!b) return;
    const turn = turnOf(b);
    turn.feedback.rating = b.dataset.rating;
    redraw(turn);
  });
  root.addEventListener("change", (ev) => {
    if (ev.target.matches(".fb-pick")) turnOf(ev.target).feedback.pick = ev.target.value || null;
  });
  root.addEventListener("input", (ev) => {
    if (ev.target.matches(".fb-corrected")) turnOf(ev.target).feedback.corrected = ev.target.value;
  });
  root.addEventListener("submit", async (ev) => {
    if (!ev.target.matches(".fb-form")) return;
    ev.preventDefault();
    const turn = turnOf(ev.target);
    ev.target.querySelector(".fb-send").disabled = true;
    await send(turn);
    redraw(turn);
  });
}
