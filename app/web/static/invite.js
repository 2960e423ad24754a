// Links to share with other players: built under the service's public address (GET /config,
// REFEREE_PUBLIC_URL), shown as text with a copy button that says what it did.

let config = null;

// GET /config once; a failure leaves the console on its own address.
export async function loadConfig(api) {
  if (config) return config;
  try {
    config = (await api.get("/config")).body || {};
  } catch {
    config = {};
  }
  return config;
}

export function publicUrl() {
  return (config && config.public_url) || null;
}

// Where shared links start: the public URL, else the address this page was opened at.
export function publicBase() {
  return publicUrl() || `${location.origin}${location.pathname.replace(/\/+$/, "")}`;
}

const enc = encodeURIComponent;

export function invitationLink(gameId, seat, token) {
  return `${publicBase()}/#game=${enc(gameId)}&seat=${enc(seat)}&token=${enc(token)}`;
}

export function spectatorLink(gameId) {
  return `${publicBase()}/#game=${enc(gameId)}&as=spectator`;
}

export function spectatorTokenLink(gameId, token) {
  return `${publicBase()}/#game=${enc(gameId)}&seat=spectator&token=${enc(token)}`;
}

function onLoopback() {
  const host = location.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

// The warning shown next to links when they can only work on this machine, or null.
export function linkWarning(h) {
  if (publicUrl() || !onLoopback()) return null;
  return h("p", { class: "link-warning", role: "note" },
    h("strong", {}, "These links only work on this machine. "),
    `Links built from ${location.hostname} only work on this machine: set REFEREE_PUBLIC_URL to the address your players reach this server at (docs/OPERATIONS.md), or open this page at that address.`);
}

// Copy the field's text: the Clipboard API where there is one (secure pages); otherwise select
// the text so the person can copy it themselves. The status says which happened.
async function copyField(input, status) {
  status.textContent = "";
  const text = input.value;
  if (navigator.clipboard && navigator.clipboard.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied";
      status.dataset.copied = "clipboard";
      return;
    } catch {
      // denied (no permission, page not focused): fall back to the selection
    }
  }
  input.focus();
  input.setSelectionRange(0, text.length);
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  status.textContent = copied ? "Copied" : "Selected: press Ctrl+C (⌘C on a Mac) to copy";
  status.dataset.copied = copied ? "selection" : "selected";
}

// A link as read-only text, a Copy button and a live status ("Copied").
export function linkField(h, link, { label, cls }) {
  const input = h("input", { type: "text", readonly: true, value: link, class: `link-url ${cls || ""}`.trim(), "aria-label": label, size: 48, spellcheck: "false" });
  const status = h("span", { class: "copy-status", role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "copy", "aria-label": `Copy ${label}` }, "Copy");
  button.addEventListener("click", () => copyField(input, status));
  input.addEventListener("focus", () => input.select());
  return h("span", { class: "link-field" }, input, " ", button, " ", status);
}
