// One language at a time: every label comes from here. The choice is kept in localStorage;
// the first visit follows the browser's language.
const WORDS = {
  ja: {
    tagline: "文書だけから答えます", lang_switch: "English", lang_switch_title: "Switch to English",
    settings: "設定", api_key: "APIキー", collection: "コレクション",
    documents: "文書", drop_here: "ここにファイルをドロップ", choose_files: "ファイルを選ぶ",
    uploads: "アップロード", no_docs: "まだ文書がありません", file: "ファイル", status: "状態",
    chunks: "チャンク", delete: "削除", confirm_delete: "「{file}」を削除しますか？",
    queued: "待機中", indexing: "索引中", indexed: "完了", failed: "失敗",
    uploaded: "送信済み", already_indexed: "登録済み", over_limit: "{mb} MB を超えています",
    connection_failed: "接続できません",
    ask: "質問する", question_placeholder: "質問を入力 — 例: 給料はいつ支払われますか",
    file_filter: "ファイルの絞り込み", start_hint: "文書を登録して質問してください。",
    searching: "検索中…", answering: "回答を作成中…",
    dont_know: "わからない", not_in_docs: "文書の中に答えが見つかりませんでした。",
    searched: "検索した質問", conditions: "条件", why: "理由",
    partial: "一部のみ:", blank: "空欄:", missing: "資料にないもの —",
    sources: "出典", retrieval: "検索結果", answerable: "回答可", not_found: "わからない", no_hits: "該当なし",
    page: "頁", heading: "見出し", similarity: "類似度", fused: "融合", rerank: "再順位", passage: "本文",
    copy: "コピー", copied: "コピーしました",
    source: "出典", close: "閉じる", page_image: "ページ画像", loading_page: "ページを表示中…",
    prev_page: "前の頁", next_page: "次の頁", zoom_in: "拡大", zoom_out: "縮小", zoom_fit: "幅に合わせる",
    ocr_title: "OCRで読み取った文字", ocr_note: "OCRで読み取った文字です。誤読を含むことがあります。",
    no_renderer: "この形式はページ画像を作れないため、読み取った本文を表示しています。",
    other_page: "引用箇所のない頁です（引用は {page} 頁）。",
    right_passage: "これが正しい箇所", right_passage_set: "正しい箇所に選びました",
    history: "会話の履歴", new_chat: "新しい会話", no_history: "まだ会話がありません",
    rename: "名前を変更", rename_prompt: "会話の名前", confirm_delete_chat: "会話「{title}」を削除しますか？",
    untitled: "無題の会話", turns: "{n} 件",
    good: "良い回答", bad: "良くない回答", fb_pick: "正しい箇所（任意）", fb_none: "—",
    fb_corrected: "正しい回答（任意）", fb_send: "送信", fb_thanks: "ありがとうございました。記録しました。",
    settings_title: "設定", mode: "検索方式", top_k: "件数 (top-k)", llm_endpoint: "LLM のエンドポイント",
    llm_model: "LLM のモデル", llm_note: "LLM はサーバーの設定（kotae serve の llm）で決まります。ここに入れた値は"
      + "このブラウザに保存され、表示用です（サーバーは質問ごとの LLM 指定を受け付けません）。",
    save: "保存", saved: "保存しました", language: "言語",
    calibration: "判定の較正", llm_shown: "LLM（参考）",
  },
  en: {
    tagline: "Answers only from your documents", lang_switch: "日本語", lang_switch_title: "日本語に切り替える",
    settings: "Settings", api_key: "API key", collection: "Collection",
    documents: "Documents", drop_here: "Drop files here", choose_files: "Choose files",
    uploads: "Uploads", no_docs: "No documents yet", file: "File", status: "Status",
    chunks: "Chunks", delete: "Delete", confirm_delete: "Delete {file}?",
    queued: "queued", indexing: "indexing", indexed: "indexed", failed: "failed",
    uploaded: "uploaded", already_indexed: "already indexed", over_limit: "over the {mb} MB limit",
    connection_failed: "connection failed",
    ask: "Ask", question_placeholder: "Type a question — e.g. When is salary paid?",
    file_filter: "File filter", start_hint: "Upload documents, then ask a question.",
    searching: "Searching…", answering: "Answering…",
    dont_know: "I don't know", not_in_docs: "The documents do not say.",
    searched: "Searched", conditions: "Settings", why: "Why",
    partial: "Partial answer:", blank: "Left blank:", missing: "not in the documents —",
    sources: "Sources", retrieval: "Retrieval", answerable: "answerable", not_found: "not found", no_hits: "no hits",
    page: "Page", heading: "Heading", similarity: "Similarity", fused: "Fused", rerank: "Rerank", passage: "Passage",
    copy: "Copy", copied: "Copied",
    source: "Source", close: "Close", page_image: "Page image", loading_page: "Loading the page…",
    prev_page: "Previous page", next_page: "Next page", zoom_in: "Zoom in", zoom_out: "Zoom out", zoom_fit: "Fit width",
    ocr_title: "text read by OCR", ocr_note: "Read by OCR from the page image; it may hold misread characters.",
    no_renderer: "No page renderer for this type: the page's text as kotae read it is shown.",
    other_page: "A page without the cited passage (it is on page {page}).",
    right_passage: "This is the right passage", right_passage_set: "Picked as the right passage",
    history: "History", new_chat: "New chat", no_history: "No conversations yet",
    rename: "Rename", rename_prompt: "Conversation name", confirm_delete_chat: "Delete the conversation “{title}”?",
    untitled: "Untitled conversation", turns: "{n} turns",
    good: "Good answer", bad: "Bad answer", fb_pick: "Right passage (optional)", fb_none: "—",
    fb_corrected: "Corrected answer (optional)", fb_send: "Send", fb_thanks: "Thank you — recorded.",
    settings_title: "Settings", mode: "Search mode", top_k: "Results (top-k)", llm_endpoint: "LLM endpoint",
    llm_model: "LLM model", llm_note: "The server's settings (kotae serve's llm) decide the LLM. What you enter here "
      + "is kept in this browser for reference only (the server takes no per-question LLM).",
    save: "Save", saved: "Saved", language: "Language",
    calibration: "Refusal gate", llm_shown: "LLM (for reference)",
  },
};

const KEY = "kotae.lang";

function initial() {
  const kept = localStorage.getItem(KEY);
  if (kept === "ja" || kept === "en") return kept;
  return (navigator.language || "").toLowerCase().startsWith("ja") ? "ja" : "en";
}

let lang = initial();

export const language = () => lang;

/** The label `key` in the current language, with {name} filled from `vars`. */
export function t(key, vars) {
  const s = WORDS[lang][key] ?? WORDS.en[key] ?? key;
  return vars ? s.replace(/\{(\w+)\}/g, (m, k) => String(vars[k] ?? m)) : s;
}

/** Fill every [data-i18n] (text), [data-i18n-title], [data-i18n-placeholder] and [data-i18n-aria] under `root`. */
export function apply(root = document) {
  document.documentElement.lang = lang;
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
}

/** Switch to `next` ("ja" | "en"), keep it, and relabel the page. */
export function setLanguage(next) {
  lang = next === "ja" ? "ja" : "en";
  localStorage.setItem(KEY, lang);
  apply();
}
