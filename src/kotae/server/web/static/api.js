// The HTTP API, as a script would use it. Paths are relative to the chosen collection:
// "" is the default collection (the unprefixed routes), else /collections/{name}.
let base = "";

export function setCollection(name) { base = name ? `/collections/${encodeURIComponent(name)}` : ""; }
export const at = (path) => base + path;

export function headers(extra) {
  const h = Object.assign({}, extra || {});
  const key = localStorage.getItem("kotae.apiKey");
  if (key) h["X-API-Key"] = key;
  return h;
}

export async function errorOf(res) {
  try {
    const data = await res.json();
    if (data && data.error) return `${data.error.message} (${data.error.code})`;
  } catch (e) { /* not JSON */ }
  return `HTTP ${res.status}`;
}

/** JSON from `path` (taken as is: use `at()` for per-collection routes); a failure throws its message. */
export async function api(path, opts) {
  const o = Object.assign({}, opts || {});
  if (o.json !== undefined) {
    o.body = JSON.stringify(o.json);
    o.headers = Object.assign({ "Content-Type": "application/json" }, o.headers);
    delete o.json;
  }
  const res = await fetch(path, Object.assign(o, { headers: headers(o.headers) }));
  if (!res.ok) throw new Error(await errorOf(res));
  return res.json();
}

/** Whether a route exists on this server: anything but a 404 (a 405 or 401 still says it is there). */
export async function exists(path) {
  try {
    const res = await fetch(path, { headers: headers() });
    return res.status !== 404;
  } catch (e) {
    return false;
  }
}

/** POST `body` to an SSE route and call `on(name, payload)` for each event, in order. */
export async function stream(path, body, on) {
  const res = await fetch(path, {
    method: "POST", headers: headers({ "Content-Type": "application/json" }), body: JSON.stringify(body),
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
      if (name === "error") throw new Error(`${payload.error.message} (${payload.error.code})`);
      on(name, payload);
    }
  }
}

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

export function fmt(x) { return x === null || x === undefined ? "—" : Number(x).toFixed(4).replace(/\.?0+$/, ""); }

// how a page is named in a citation, as kotae.types.page_label names it
export function pageLabel(file, page) {
  const ext = String(file || "").toLowerCase().split(".").pop();
  return ({ xlsx: "sheet ", xlsm: "sheet ", pptx: "slide " }[ext] || "p.") + page;
}
