// kotae web UI: plain ES modules over the same HTTP API a script would use (no build step, no CDN).
// Features follow the server: conversations, feedback and the collection picker appear only where
// the server has /conversations, /feedback and more than one collection.
import { api, at, esc, exists, headers, setCollection } from "./api.js";
import { apply, language, setLanguage, t } from "./i18n.js";
import * as documents from "./documents.js";
import * as history from "./history.js";
import * as settings from "./settings.js";
import * as source from "./source.js";
import * as thread from "./thread.js";

const $ = (sel) => document.querySelector(sel);
const COLLECTION = "kotae.collection";
let collections = [];

async function showCalibration() {
  const chosen = collections.find((c) => c.name === localStorage.getItem(COLLECTION));
  let cal = chosen && !chosen.default ? chosen.calibration : null;
  if (!cal) {
    try { cal = (await api("/health")).calibration; } catch (e) { cal = null; }
  }
  $("#calibration").textContent = cal && cal.summary ? `${t("calibration")}: ${cal.summary}` : "";
}

function showLlm() {
  const s = settings.load();
  const llm = [s.llmEndpoint, s.llmModel].filter(Boolean).join(" · ");
  $("#llm-shown").hidden = !llm;
  $("#llm-shown").textContent = llm ? `${t("llm_shown")}: ${llm}` : "";
}

// Which optional routes this server (and collection) has.
async function probe() {
  thread.caps.conversations = await exists(at("/conversations"));
  thread.caps.feedback = await exists(at("/feedback"));
  $("#history").hidden = !thread.caps.conversations;
  $("#new-chat").hidden = !thread.caps.conversations;
  document.body.classList.toggle("conversations", thread.caps.conversations);
  if (thread.caps.conversations) history.refresh(null);
}

async function loadCollections() {
  try {
    const res = await fetch("/collections", { headers: headers() });
    collections = res.ok ? await res.json() : [];
  } catch (e) {
    collections = [];
  }
  const picker = $("#collection");
  $("#collection-box").hidden = collections.length <= 1;
  let chosen = localStorage.getItem(COLLECTION);
  if (!collections.some((c) => c.name === chosen)) chosen = null;
  if (collections.length <= 1) chosen = null;
  picker.innerHTML = collections.map((c) =>
    `<option value="${esc(c.name)}">${esc(c.name)} (${c.documents})</option>`).join("");
  const current = chosen || (collections.find((c) => c.default) || {}).name;
  if (current) picker.value = current;
  useCollection(chosen);
}

function useCollection(name) {
  const entry = collections.find((c) => c.name === name);
  setCollection(entry && !entry.default ? entry.name : "");
}

async function switchCollection(name) {
  localStorage.setItem(COLLECTION, name);
  useCollection(name);
  thread.reset();
  await Promise.all([documents.refresh(), probe(), showCalibration()]);
}

function relabel() {
  apply();
  $("#lang").textContent = t("lang_switch");
  documents.relabel();
  thread.render();
  if (thread.caps.conversations) history.relabel();
  source.relabel();
  showLlm();
  showCalibration();
}

async function start() {
  apply();
  $("#lang").textContent = t("lang_switch");
  $("#lang").addEventListener("click", () => { setLanguage(language() === "ja" ? "en" : "ja"); relabel(); });
  documents.init();
  source.init();
  settings.init(showLlm);
  thread.init(async (c) => {  // after each answer: the list, and the title the first question gave
    const items = await history.refresh(c ? c.id : null);
    const listed = c && items.find((x) => x.id === c.id);
    if (listed) thread.renamed(listed.id, listed.title);
  });
  history.init({
    open: (id) => thread.openConversation(id),
    fresh: () => thread.reset(),
    renamed: (id, title) => thread.renamed(id, title),
    gone: (id) => thread.gone(id),
  });
  $("#collection").addEventListener("change", (ev) => switchCollection(ev.target.value));
  if (document.body.dataset.needsKey === "true") {
    $("#key-box").hidden = false;
    $("#api-key").value = localStorage.getItem("kotae.apiKey") || "";
    $("#api-key").addEventListener("change", async (ev) => {
      localStorage.setItem("kotae.apiKey", ev.target.value);
      await loadCollections();
      documents.refresh();
      probe();
    });
  }
  showLlm();
  thread.render();
  await loadCollections();
  await Promise.all([documents.refresh(), probe(), showCalibration()]);
  document.body.dataset.ready = "true";  // the optional features are known (tests wait for this)
}

start();
