// Appeals (issue 26): a side appeals a ruling from the log (a note, then POST
// /games/{id}/events/{n}/appeal); the umpire's queue in the Umpire tab upholds an appeal or
// overrides it by rolling back to the game as it was just before the appealed event.

const NOTE_MAX = 500;

// The "Appeal" button beside a ruling in the log: for a side's seat, on an action event it
// can read (match-flow events carry a payload and are not rulings to appeal).
export function appealButton(li, ev, ctx) {
  const { S, h, submit } = ctx;
  if (!S.seat || S.seat === "umpire" || ev.redacted || ev.payload || !ev.ruling) return;
  const open = h("button", { type: "button", class: "appeal-open", "aria-label": `Appeal the ruling of event ${ev.seq}` }, "Appeal");
  open.onclick = () => {
    if (li.querySelector(".appeal-form")) return;
    const id = `appeal-note-${ev.seq}`;
    const note = h("input", { id, class: "appeal-note", maxlength: NOTE_MAX, size: 30, placeholder: "why the ruling is wrong" });
    const send = h("button", { type: "button", class: "appeal-send" }, "Send appeal");
    send.onclick = async () => {
      const text = note.value.trim();
      if (!text) return ctx.notify("Say why you appeal the ruling.", "error");
      const res = await submit(`/games/${S.gameId}/events/${ev.seq}/appeal`, { note: text });
      if (res) ctx.notify(`Appeal sent to the umpire (event ${res.event}).`, "ok");
    };
    li.append(h("div", { class: "appeal-form" }, h("label", { for: id }, "Your appeal: "), note, send));
    note.focus();
  };
  li.append(" ", open);
}

// The umpire's queue of open appeals (and the decided ones, for the record).
// Drawn again at every new version: the notes being typed on open appeals are carried over
// (by appeal, with the focus and caret of the one being typed in), so a move arriving while
// the umpire writes takes nothing they typed.
const typedNotes = new Map(); // [game, appeal] as JSON -> the note typed on it so far

export async function renderAppeals(box, ctx) {
  const { S, h, api, submit, notify, problemText } = ctx;
  if (S.seat !== "umpire") {
    box.innerHTML = "";
    return;
  }
  let items = [];
  try {
    items = (await api.get(`/games/${S.gameId}/appeals`)).body.items || [];
  } catch (err) {
    box.innerHTML = "";
    notify(problemText(err), "error");
    return;
  }
  const active = document.activeElement;
  const typing = box.contains(active) && active.classList.contains("decision-note") ? [active.dataset.key, active.selectionStart, active.selectionEnd] : null;
  box.innerHTML = "";
  const open = items.filter((a) => a.status === "open");
  box.append(h("h4", {}, `Appeals (${open.length} open)`));
  if (!items.length) {
    box.append(h("p", { class: "hint" }, "No appeal. A side appeals a ruling from its log."));
    return;
  }
  const list = h("ul", { class: "appeal-queue" });
  for (const a of items) {
    const li = h("li", { class: `appeal ${a.status}`, "data-appeal": a.appeal, "data-event": a.event },
      h("strong", {}, `#${a.appeal}`), ` ${a.appellant} appeals event #${a.event} (${a.event_kind}): `,
      h("q", {}, a.note));
    if (a.status === "open") {
      const key = JSON.stringify([S.gameId, a.appeal]);
      const note = h("input", { class: "decision-note", "data-key": key, maxlength: NOTE_MAX, size: 24, "aria-label": `Your note on appeal ${a.appeal}`, placeholder: "note (optional)" });
      note.value = typedNotes.get(key) || "";
      note.addEventListener("input", () => typedNotes.set(key, note.value));
      if (typing && typing[0] === key) queueMicrotask(() => { note.focus({ preventScroll: true }); note.setSelectionRange(typing[1], typing[2]); });
      const decide = (body) => submit(`/games/${S.gameId}/appeals/${a.appeal}/decision`, { note: note.value.trim(), ...body });
      li.append(" ", note,
        h("button", { type: "button", class: "appeal-uphold", onclick: () => decide({ outcome: "upheld" }) }, "Uphold"),
        h("button", { type: "button", class: "appeal-rollback", "aria-label": `Override appeal ${a.appeal}: roll back to version ${a.event}, before event ${a.event}`, onclick: () => decide({ outcome: "overridden", rollback_to: a.event }) }, `Override: roll back to v${a.event}`));
    } else if (a.decision) {
      const how = a.decision.override === "rollback" ? ` (rolled back to v${a.decision.to_version})` : a.decision.override === "action" ? " (corrected action)" : "";
      li.append(h("div", { class: "decision" }, `${a.decision.outcome}${how}${a.decision.note ? `: ${a.decision.note}` : ""}`));
    }
    list.append(li);
  }
  box.append(list);
}
