// Notifications a person receives (issue 24): browser notifications while the console's tab is
// in the background, and "Email this link" beside each invitation link the umpire is shown.
// Every fact comes from the API: whose turn it is is GET /games/{id}/actions/available.

import { Api } from "./api.js";

const KEY = "referee.notify";
let watch = null; // {api, gameId, seat, wasMyTurn, enabled}

function supported() {
  return typeof window !== "undefined" && "Notification" in window;
}

function waitedFor(av) {
  return Boolean(av && (av.may_act || av.may_end_phase || (av.sealed || []).length));
}

async function myTurn() {
  if (!watch) return false;
  try {
    const r = await watch.api.get(`/games/${encodeURIComponent(watch.gameId)}/actions/available`);
    return waitedFor(r.body);
  } catch {
    return false;
  }
}

// A toggle for the seat's game ("Notify me when it is my turn"), placed in `host`. Turning it on
// asks the browser's permission; while it is on and the page is hidden, an event that makes the
// game wait for this seat shows a notification. Spectators get none (they never have a turn).
export function mountNotifyToggle(h, host, { api, gameId, seat }) {
  if (!host) return;
  host.innerHTML = "";
  watch = seat ? { api, gameId, seat, wasMyTurn: null, enabled: false } : null;
  if (!watch) return;
  const box = h("input", { type: "checkbox", id: "notify-turn", "aria-describedby": "notify-status" });
  const status = h("span", { id: "notify-status", class: "hint", role: "status", "aria-live": "polite" });
  const label = h("label", { for: "notify-turn", class: "notify-toggle" }, box, " Notify me when it is my turn");
  host.append(label, " ", status);
  const current = watch;
  const turnOn = async () => {
    if (!supported()) {
      box.checked = false;
      status.textContent = "This browser has no notifications.";
      return;
    }
    let permission = Notification.permission;
    if (permission !== "granted") permission = await Notification.requestPermission();
    if (permission !== "granted") {
      box.checked = false;
      status.textContent = "Notifications are blocked for this page (browser settings).";
      return;
    }
    current.enabled = true;
    current.wasMyTurn = await myTurn();
    status.textContent = "On: a notification when it becomes your turn while this tab is in the background.";
    document.body.dataset.notify = "on";
    try { sessionStorage.setItem(KEY, "on"); } catch { /* storage off: the toggle still works */ }
  };
  box.addEventListener("change", () => {
    if (box.checked) turnOn();
    else {
      current.enabled = false;
      status.textContent = "";
      document.body.dataset.notify = "off";
      try { sessionStorage.removeItem(KEY); } catch { /* nothing to forget */ }
    }
  });
  let remembered = null;
  try { remembered = sessionStorage.getItem(KEY); } catch { remembered = null; }
  if (remembered === "on" && supported() && Notification.permission === "granted") {
    box.checked = true;
    turnOn();
  }
}

let pending = null;

// Called for every event of the game's stream: re-ask whose turn it is (once per burst).
export function onGameEvent() {
  if (!watch || !watch.enabled || pending) return;
  const current = watch;
  pending = setTimeout(async () => {
    pending = null;
    const now = await myTurn();
    if (watch !== current || !current.enabled) return;
    const became = now && current.wasMyTurn === false;
    current.wasMyTurn = now;
    if (became && document.visibilityState === "hidden") {
      const n = new Notification(`Your turn: ${current.seat}`, {
        body: `Game ${current.gameId.slice(0, 8)} is waiting for you.`,
        tag: `referee-turn-${current.gameId}`,
      });
      n.onclick = () => { window.focus(); n.close(); };
    }
  }, 80);
}

// An address field and "Email this link" for one seat's invitation: the umpire's token (from the
// answer of POST /games) sends POST /games/{id}/seats/{seat}/invite with the seat's token, which
// the emailed link carries -- the email is a secret, as the link is.
export function emailInviteField(h, { gameId, seat, seatToken, umpireToken }) {
  const api = new Api(umpireToken);
  const input = h("input", { type: "email", class: "invite-email", placeholder: "player@example.org", "aria-label": `Email address for the ${seat} invitation`, size: 22 });
  const status = h("span", { class: "email-status", role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "email-invite", "aria-label": `Email the ${seat} invitation link` }, "Email this link");
  button.addEventListener("click", async () => {
    const address = input.value.trim();
    status.textContent = "";
    if (!address) {
      status.textContent = "Enter an address first.";
      return;
    }
    button.disabled = true;
    try {
      const r = await api.request("POST", `/games/${encodeURIComponent(gameId)}/seats/${encodeURIComponent(seat)}/invite`, { body: { address, token: seatToken } });
      status.textContent = `Sending to ${r.body.address} (it holds the seat's token: send it only to its player).`;
      status.dataset.sent = "true";
    } catch (err) {
      status.textContent = err.code === "email.not_configured"
        ? "This server does not send email (REFEREE_SMTP_URL not set)."
        : `${err.status} ${err.code}: ${(err.problem && err.problem.detail) || err.message}`;
      status.dataset.sent = "false";
    } finally {
      button.disabled = false;
    }
  });
  return h("span", { class: "email-field" }, input, " ", button, " ", status);
}
