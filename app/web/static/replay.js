// Replay: step through the event log with the board as it stood after each event, and the
// ruling of each event beside it. The log is GET /games/{id}/events and each past position
// GET /games/{id}/positions/{version}: both as this seat may see them (a hidden event shows as
// redacted, and the board never shows more than the seat's view of the state). Opening the
// Replay tab starts it at the latest event; leaving the tab (or "Back to the live game")
// returns the board to the live game.
const $ = (id) => document.getElementById(id);

let current = null; // the replay of the game open now (openGame sets it up again)

// Every event of the log as this seat reads it, oldest first.
export async function readLog(S) {
  const out = [];
  let after = 0;
  for (;;) {
    const page = (await S.api.get(`/games/${S.gameId}/events?after=${after}&limit=100`)).body;
    out.push(...page.items);
    if (page.next === null || page.next === undefined || !page.items.length) return out;
    after = page.next;
  }
}

export function setupReplay(ctx) {
  if (current) current.dispose();
  current = createReplay(ctx);
  return current;
}

function createReplay({ S, h, renderRuling, notify, problemText, render }) {
  const pane = $("pane-replay");
  const banner = $("replay-banner");
  // steps[0] is the game as set up (version 1); steps[i] the position after event i
  let steps = [{ version: 1, event: null }];
  let index = 0;
  let asked = 0;
  const positions = new Map(); // version -> GET positions answer (past positions never change)

  const controls = h("div", { class: "replay-controls", role: "group", "aria-label": "Step through the log" },
    h("button", { type: "button", id: "replay-first", "aria-label": "First: the game as set up" }, "« First"),
    h("button", { type: "button", id: "replay-prev", "aria-label": "Previous event" }, "◀ Previous"),
    h("button", { type: "button", id: "replay-next", "aria-label": "Next event" }, "Next ▶"),
    h("button", { type: "button", id: "replay-last", "aria-label": "Last: the latest event" }, "Last »"));
  const status = h("p", { id: "replay-status", class: "replay-status", role: "status", "aria-live": "polite" });
  const where = h("p", { id: "replay-where", class: "hint" });
  const ruling = h("div", { id: "replay-ruling", class: "ruling replay-ruling", "aria-label": "The ruling of this event" });
  const live = h("button", { type: "button", id: "replay-leave" }, "Back to the live game");
  pane.innerHTML = "";
  pane.tabIndex = 0;
  pane.append(
    h("h3", {}, "Replay"),
    h("p", { class: "hint" }, "The board as it stood after each event, as your seat may see it. Keys: Home, ←, →, End."),
    controls, status, where, ruling, live);

  const go = (i) => show(Math.max(0, Math.min(steps.length - 1, i)));
  $("replay-first").onclick = () => go(0);
  $("replay-prev").onclick = () => go(index - 1);
  $("replay-next").onclick = () => go(index + 1);
  $("replay-last").onclick = () => go(steps.length - 1);
  live.onclick = () => $("tab-act").click();
  const onKey = (evt) => {
    const to = { Home: 0, End: steps.length - 1, ArrowLeft: index - 1, ArrowRight: index + 1 }[evt.key];
    if (to === undefined || evt.altKey || evt.ctrlKey || evt.metaKey) return;
    evt.preventDefault();
    go(to);
  };
  pane.addEventListener("keydown", onKey);

  async function enter() {
    pane.dataset.active = "true";
    try {
      const log = await readLog(S);
      steps = [{ version: 1, event: null }, ...log.map((ev) => ({ version: ev.version, event: ev }))];
    } catch (err) {
      notify(problemText(err), "error");
    }
    if (pane.hidden) return; // left while the log was being read
    await show(steps.length - 1);
  }

  function leave() {
    delete pane.dataset.active;
    asked += 1; // a position still on its way is not shown any more
    banner.hidden = true;
    delete document.body.dataset.replay;
    if (S.replay) {
      S.replay = null;
      render();
    }
  }

  async function show(i) {
    index = i;
    const step = steps[i];
    const ticket = ++asked;
    renderStep(step, i);
    let pos = positions.get(step.version);
    if (!pos) {
      try {
        pos = (await S.api.get(`/games/${S.gameId}/positions/${step.version}`)).body;
        positions.set(step.version, pos);
      } catch (err) {
        if (ticket === asked) notify(problemText(err), "error");
        return;
      }
    }
    if (ticket !== asked || pane.hidden) return;
    S.replay = { version: pos.version, state: pos.state, position: pos.position, seq: step.event ? step.event.seq : 0 };
    const p = pos.position;
    where.textContent = p ? `Then: turn ${p.turn} · ${p.phase_title || p.phase} · phasing ${p.phasing_side} · version ${pos.version} of ${pos.current_version}` : `Then: version ${pos.version} of ${pos.current_version}`;
    banner.hidden = false;
    banner.textContent = `Replay: the board after ${step.event ? `event ${step.event.seq}` : "set-up"} (version ${pos.version}). Leave the Replay tab to return to the live game.`;
    document.body.dataset.replay = String(pos.version);
    pane.dataset.version = String(pos.version);
    render();
  }

  function renderStep(step, i) {
    const last = steps.length - 1;
    pane.dataset.step = String(i);
    const focused = pane.contains(document.activeElement);
    $("replay-first").disabled = $("replay-prev").disabled = i === 0;
    $("replay-next").disabled = $("replay-last").disabled = i === last;
    // a button just disabled drops the focus: keep it in the replay, for the keys
    if (focused && !pane.contains(document.activeElement)) pane.focus();
    ruling.innerHTML = "";
    const ev = step.event;
    if (!ev) {
      status.textContent = `Start: the game as set up (${last} event${last === 1 ? "" : "s"} in the log)`;
      ruling.append(h("p", { class: "hint" }, "No event yet: press Next to see the first."));
      return;
    }
    status.textContent = `Event ${ev.seq} of ${last}: ${ev.redacted ? "hidden from you" : `${ev.kind} by ${ev.seat}`}`;
    ruling.dataset.seq = String(ev.seq);
    if (ev.redacted || !ev.ruling) {
      ruling.append(h("p", { class: "verdict redacted", "data-redacted": "true" }, h("strong", {}, "Redacted"), " — this event is hidden from your seat; the board shows only what you may see after it."));
      return;
    }
    renderRuling(ev.ruling, ruling);
    if ((ev.dice || []).length) ruling.append(h("p", { class: "dice-used" }, `dice: ${ev.dice.map((d) => `d${d.sides}=${d.value}`).join(" ")}`));
  }

  // the Replay tab shown or hidden (by a click, the arrow keys on the tabs, or "Back to the
  // live game"): enter or leave the replay
  const observer = new MutationObserver(() => (pane.hidden ? leave() : enter()));
  observer.observe(pane, { attributes: true, attributeFilter: ["hidden"] });

  return {
    dispose() {
      observer.disconnect();
      pane.removeEventListener("keydown", onKey);
      leave();
    },
    // a new event while replaying: one more step to go to (the board stays where it is)
    onEvent(ev) {
      if (!pane.dataset.active || steps.some((s) => s.event && s.event.seq === ev.seq)) return;
      steps.push({ version: ev.version, event: ev });
      steps.sort((a, b) => a.version - b.version);
      renderStep(steps[index], index);
    },
    // the board during the replay: the past units only, no live overlays
    draw(board, units) {
      const st = (S.replay && S.replay.state) || {};
      if (S.kind === "zones") {
        const reveals = {};
        for (const s of steps) {
          const ev = s.event;
          if (ev && ev.seq <= S.replay.seq && ev.kind === "sealed_revealed" && ev.payload && ev.payload.decision) {
            const zone = String(ev.payload.decision).split(":")[1];
            if (zone) reveals[zone] = ev;
          }
        }
        return board.render(units, zoneDisplays(units), reveals, null);
      }
      board.drawUnits(units, st.markers || [], S.board.front_table, null);
      board.drawZones([], [], []);
      board.drawReach(null, null);
      board.drawSupply(null);
      if (board.drawPath) board.drawPath(null, [], null);
    },
  };
}

// Objective zones: who held which sector then, from the units of the past position.
function zoneDisplays(units) {
  const out = {};
  for (const u of units) {
    if (!u.zone || u.eliminated) continue;
    const z = (out[u.zone] = out[u.zone] || { sectors: {}, in_transit: [] });
    if (u.sector === null || u.sector === undefined) {
      z.in_transit.push(u.id);
      continue;
    }
    const s = (z.sectors[u.sector] = z.sectors[u.sector] || { holder: u.side, units: [] });
    s.units.push(u.id);
  }
  return out;
}
