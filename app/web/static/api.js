// The console's only way to the server: the public HTTP API, like any other client.
// The seat token travels only in the Authorization header, never in a URL.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || `http.${status}`;
  }
}

// The API is pinned at version 1 (`/v1/...`); the console's own files stay unprefixed.
export const API_PREFIX = "/v1";

export function apiPath(path) {
  return path.startsWith("/console/") ? path : `${API_PREFIX}${path}`;
}

function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

export class Api {
  constructor(token) {
    this.token = token || null;
  }

  headers(extra) {
    const h = { Accept: "application/json, application/problem+json", ...(extra || {}) };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    return h;
  }

  // Returns {status, headers, body}; throws ApiError on 4xx/5xx.
  async request(method, path, { body, ifMatch, idempotent, headers } = {}) {
    const h = this.headers(headers);
    if (body !== undefined) h["Content-Type"] = "application/json";
    if (ifMatch) h["If-Match"] = ifMatch;
    if (idempotent) h["Idempotency-Key"] = newKey();
    const resp = await fetch(apiPath(path), {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
    const text = await resp.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (!resp.ok) throw new ApiError(resp.status, typeof data === "object" ? data : { detail: text });
    return { status: resp.status, headers: resp.headers, body: data };
  }

  get(path) {
    return this.request("GET", path);
  }

  // A write with If-Match and a fresh Idempotency-Key.
  write(path, body, etag, headers) {
    return this.request("POST", path, { body, ifMatch: etag, idempotent: true, headers });
  }

  query(gameId, name, params) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) {
      if (v === null || v === undefined) continue;
      qs.append(k, Array.isArray(v) ? v.join(",") : String(v));
    }
    return this.get(`/games/${encodeURIComponent(gameId)}/queries/${name}?${qs}`);
  }

  // Read the Server-Sent Events stream with fetch (EventSource cannot send headers).
  // Calls onEvent(event) for each log event; reconnects with Last-Event-ID until stop().
  // `path` (default "events/stream"): "messages/stream" reads the table talk the same way.
  stream(gameId, after, onEvent, onStatus, path = "events/stream") {
    const ctl = { stopped: false, abort: null, last: after };
    const run = async () => {
      while (!ctl.stopped) {
        const abort = new AbortController();
        ctl.abort = abort;
        try {
          const h = this.headers({ Accept: "text/event-stream" });
          if (ctl.last !== null && ctl.last !== undefined) h["Last-Event-ID"] = String(ctl.last);
          const resp = await fetch(apiPath(`/games/${encodeURIComponent(gameId)}/${path}`), {
            headers: h,
            signal: abort.signal,
            cache: "no-store",
          });
          if (resp.status === 401) {
            // the token no longer holds (revoked, rotated, reissued): retrying cannot help
            ctl.stopped = true;
            onStatus && onStatus("closed: this token no longer holds (401)");
            return;
          }
          if (!resp.ok || !resp.body) throw new ApiError(resp.status, null);
          onStatus && onStatus("live");
          const reader = resp.body.getReader();
          const decoder = new TextDecoder();
          let buf = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += decoder.decode(value, { stream: true });
            let cut;
            while ((cut = buf.search(/\r?\n\r?\n/)) >= 0) {
              const block = buf.slice(0, cut);
              buf = buf.slice(cut).replace(/^\r?\n\r?\n/, "");
              const msg = parseSse(block);
              if (msg && msg.event === "revoked") {
                ctl.stopped = true;
                onStatus && onStatus("closed: this token was revoked, rotated or reissued");
                return;
              }
              if (msg && msg.data) {
                if (msg.id) ctl.last = Number(msg.id);
                try {
                  onEvent(JSON.parse(msg.data));
                } catch (err) {
                  console.error(err);
                }
              }
            }
          }
        } catch (err) {
          if (ctl.stopped) return;
          onStatus && onStatus("reconnecting");
        }
        if (!ctl.stopped) await new Promise((r) => setTimeout(r, 1000));
      }
    };
    run();
    return {
      stop() {
        ctl.stopped = true;
        if (ctl.abort) ctl.abort.abort();
      },
    };
  }
}

function parseSse(block) {
  const msg = { id: null, event: null, data: "" };
  let any = false;
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "data") msg.data += (msg.data ? "\n" : "") + value;
    else if (field === "id") msg.id = value;
    else if (field === "event") msg.event = value;
    any = true;
  }
  return any ? msg : null;
}
