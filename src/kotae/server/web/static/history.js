// The conversation list (servers with /conversations): open, rename, delete, and a new chat.
import { api, at, esc } from "./api.js";
import { t } from "./i18n.js";
import { BIN, PEN } from "./icons.js";

const $ = (sel) => document.querySelector(sel);
let items = [];
let active = null;

function render() {
  $("#history-empty").hidden = items.length > 0;
  $("#history-list").innerHTML = items.map((c) => `
    <li data-id="${esc(c.id)}" ${c.id === active ? 'aria-current="true"' : ""}>
      <button type="button" class="open" title="${esc(c.updated || "")}"><span class="title">${esc(c.title || t("untitled"))}</span>
        <span class="muted small">${esc(t("turns", { n: c.turns ?? 0 }))}</span></button>
      <button type="button" class="rename icon" title="${esc(t("rename"))}" aria-label="${esc(t("rename"))}">${PEN}</button>
      <button type="button" class="remove icon" title="${esc(t("delete"))}" aria-label="${esc(t("delete"))}">${BIN}</button>
    </li>`).join("");
}

/** List the conversations again (and return them); `current` is the one on screen. */
export async function refresh(current) {
  active = current === undefined ? active : current;
  try {
    items = await api(at("/conversations"));
  } catch (e) {
    $("#history-list").innerHTML = `<li class="err small">${esc(e.message)}</li>`;
    return [];
  }
  render();
  return items;
}

export const relabel = render;

/** Wire the list: `open(id)` shows a conversation, `fresh()` starts a new one; `renamed(id, title)`, `gone(id)`. */
export function init({ open, fresh, renamed, gone }) {
  $("#new-chat").addEventListener("click", () => { active = null; fresh(); render(); $("#question").focus(); });
  $("#history-list").addEventListener("click", async (ev) => {
    const li = ev.target.closest("li[data-id]");
    if (!li) return;
    const id = li.dataset.id;
    const c = items.find((x) => x.id === id);
    try {
      if (ev.target.closest("button.open")) {
        active = id;
        render();
        await open(id);
      } else if (ev.target.closest("button.rename")) {
        const title = prompt(t("rename_prompt"), c.title || "");
        if (title === null || !title.trim()) return;
        await api(at(`/conversations/${encodeURIComponent(id)}`), { method: "PATCH", json: { title: title.trim() } });
        await refresh();
        renamed(id, title.trim());
      } else if (ev.target.closest("button.remove")) {
        if (!confirm(t("confirm_delete_chat", { title: c.title || t("untitled") }))) return;
        await api(at(`/conversations/${encodeURIComponent(id)}`), { method: "DELETE" });
        if (active === id) active = null;
        await refresh();
        gone(id);
      }
    } catch (e) {
      alert(e.message);
    }
  });
}
