// The settings panel: search mode and top-k (sent with every question), and the LLM endpoint and model
// (kept and shown for reference: the server's own settings choose the LLM). Kept in localStorage.
import { t } from "./i18n.js";

const KEY = "kotae.settings";
const MODES = ["hybrid", "dense", "keyword", "hybrid+rerank"];
const DEFAULTS = { mode: "hybrid", topK: 5, llmEndpoint: "", llmModel: "" };
const $ = (sel) => document.querySelector(sel);

/** The saved settings, each checked (a bad or missing value falls back to its default). */
export function load() {
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { /* reset */ }
  const s = Object.assign({}, DEFAULTS, kept);
  if (!MODES.includes(s.mode)) s.mode = DEFAULTS.mode;
  s.topK = Math.min(50, Math.max(1, parseInt(s.topK, 10) || DEFAULTS.topK));
  return s;
}

function save(s) { localStorage.setItem(KEY, JSON.stringify(s)); }

function fill() {
  const s = load();
  $("#set-mode").value = s.mode;
  $("#set-top-k").value = s.topK;
  $("#set-llm-endpoint").value = s.llmEndpoint;
  $("#set-llm-model").value = s.llmModel;
}

/** Wire the dialog: `changed()` runs after a save. */
export function init(changed) {
  const dialog = $("#settings");
  $("#open-settings").addEventListener("click", () => { fill(); $("#set-saved").textContent = ""; dialog.showModal(); });
  $("#set-close").addEventListener("click", () => dialog.close());
  $("#settings-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    save({
      mode: $("#set-mode").value,
      topK: parseInt($("#set-top-k").value, 10),
      llmEndpoint: $("#set-llm-endpoint").value.trim(),
      llmModel: $("#set-llm-model").value.trim(),
    });
    fill();
    $("#set-saved").textContent = t("saved");
    changed();
  });
}

/** One line naming the search settings (shown under answers and in the "I don't know" box). */
export function describe(s, file) {
  return `${s.mode}, top_k=${s.topK}${file ? `, file=${file}` : ""}`;
}
