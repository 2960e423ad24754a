// Orders by pointing for the hex rulesets (`zoi`, `zoc`) and the `terrain` table: which order
// the selected unit is given (as `GET /games/{id}/actions/available` offers it), and the parts of
// it that are not a path clicked on the board: a facing dial (buttons or arrow keys), a formation
// menu, limber / unlimber, a melee result, a retreat length, a supply line left to the referee,
// a fire target (click the enemy counter), a posture. Nothing here judges: the action built is
// sent for a dry run and the ruling says what it means.
import { hexLayout } from "./hexboard.js";

export const ORDER_RULESETS = ["zoi", "zoc", "terrain"];

const LABELS = {
  move: "Move", melee_retreat: "Melee retreat", retreat: "Retreat", trace_supply: "Supply line",
  charge: "Charge", fire: "Fire", hold: "Posture",
};
const COMPASS = ["E", "SE", "S", "SW", "W", "NW", "N", "NE"];

// Compass name of a screen angle (degrees clockwise from east).
function compass(deg) {
  const i = Math.round((((deg % 360) + 360) % 360) / 45) % 8;
  return COMPASS[i];
}

export function createOrders({ S, h, host, onChange, cites }) {
  const enabled = ORDER_RULESETS.includes(S.meta && S.meta.id);
  const schemas = (S.meta && S.meta.schemas && S.meta.schemas.actions) || {};
  const geo = S.board && S.board.layout ? hexLayout(S.board.layout) : hexLayout(null);
  const o = { kind: null, changes: [], result: "", length: 1, target: null, posture: "holding", search: false, overrun: null };

  const unit = () => {
    const st = S.view && S.view.state;
    return ((st && st.units) || []).find((u) => u.id === S.selected) || null;
  };
  const offered = () => {
    const av = S.available && (S.available.units || []).find((u) => u.unit === S.selected);
    return ((av && av.kinds) || []).filter((k) => LABELS[k] && schemas[k]);
  };
  const kinds = () => {
    const k = offered();
    // a unit that may do nothing now may still be tried: the dry run says why not
    return k.length ? k : schemas.move ? ["move"] : [];
  };
  const live = () => o.changes.filter((c) => c.at <= S.path.length);

  // The unit's formation and facing after the changes ordered so far.
  const current = () => {
    const u = unit() || {};
    let formation = u.formation || null;
    let facing = u.facing === undefined ? null : u.facing;
    for (const c of live()) {
      if (c.step.do === "formation") {
        formation = c.step.formation;
        if (c.step.facing !== undefined) facing = c.step.facing;
      }
      if (c.step.do === "face") facing = c.step.facing;
      if (c.step.do === "limber") formation = "limbered";
      if (c.step.do === "unlimber") formation = "unlimbered";
    }
    return { formation, facing };
  };
  const frontRow = (u, formation) => {
    const ft = S.board.front_table || {};
    return ft[`${u.type}.${u.subtype}.${formation}`] || ft[`${u.type}.${formation}`] || null;
  };
  const formations = (u) => {
    const ft = S.board.front_table || {};
    const out = new Set();
    for (const key of Object.keys(ft)) {
      const parts = key.split(".");
      if (parts[0] !== u.type || !ft[key]) continue;
      if (parts.length === 3 && parts[1] !== u.subtype) continue;
      out.add(parts[parts.length - 1]);
    }
    if (u.type === "artillery") { out.delete("limbered"); out.delete("unlimbered"); }
    return [...out].sort();
  };

  // A change in place: a second change of the same sort at the same point replaces the first.
  const change = (step) => {
    const at = S.path.length;
    o.changes = live();
    const last = o.changes[o.changes.length - 1];
    if (last && last.at === at && last.step.do === step.do) o.changes.pop();
    // turning back to the facing the unit has at this point is no change at all
    if (!(step.do === "face" && step.facing === current().facing)) o.changes.push({ at, step });
    changed();
  };

  let focusKey = null;
  const changed = () => {
    render();
    onChange();
  };

  function dial(u) {
    const { formation, facing } = current();
    const row = frontRow(u, formation);
    if (!row || row.faces === "all" || row.faces === "none") {
      return h("p", { class: "hint", "data-no-facing": "" }, `${formation || "this formation"}: no facing to choose (the whole front or none).`);
    }
    const vertex = row.faces === "vertex";
    const size = 132;
    const box = h("div", { class: "facing-dial", role: "radiogroup", "aria-label": `Facing (${vertex ? "a vertex" : "a hexside"}): arrow keys turn` , style: `width:${size}px;height:${size}px` });
    for (let d = 0; d < 6; d++) {
      const deg = geo.angle(d, vertex);
      const rad = (deg * Math.PI) / 180;
      const name = compass(deg);
      const on = d === facing;
      const b = h("button", {
        type: "button", role: "radio", class: `dial-dir${on ? " on" : ""}`, "aria-checked": String(on), tabindex: on || (facing === null && d === 0) ? 0 : -1,
        "data-facing": d, "data-okey": `dial-${d}`, "aria-label": `Face ${name} (${vertex ? "vertex" : "hexside"} ${d})`,
        style: `left:${size / 2 + Math.cos(rad) * 48 - 17}px;top:${size / 2 + Math.sin(rad) * 48 - 14}px`,
        onclick: () => { focusKey = `dial-${d}`; change({ do: "face", facing: d }); },
      }, h("span", { "aria-hidden": "true", style: `display:inline-block;transform:rotate(${deg + 90}deg)` }, "↑"), h("small", {}, name));
      b.addEventListener("keydown", (evt) => {
        const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[evt.key];
        if (!step) return;
        evt.preventDefault();
        const next = ((facing === null ? d : facing) + step + 6) % 6;
        focusKey = `dial-${next}`;
        change({ do: "face", facing: next });
      });
      box.append(b);
    }
    box.append(h("span", { class: "dial-centre", "aria-hidden": "true" }, facing === null ? "–" : compass(geo.angle(facing, vertex))));
    return box;
  }

  function zoiMove(u) {
    const parts = [];
    if (u.type === "artillery") {
      const { formation } = current();
      parts.push(h("div", { class: "order-row" },
        h("button", { type: "button", "data-step": "limber", "data-okey": "limber", disabled: formation === "limbered" || null, onclick: () => { focusKey = "limber"; change({ do: "limber" }); } }, "Limber"),
        h("button", { type: "button", "data-step": "unlimber", "data-okey": "unlimber", disabled: formation === "unlimbered" || null, onclick: () => { focusKey = "unlimber"; change({ do: "unlimber" }); } }, "Unlimber")));
    }
    const forms = formations(u);
    if (forms.length) {
      const { formation } = current();
      const sel = h("select", { id: "order-formation", "data-okey": "formation", "aria-label": "Formation" },
        ...forms.map((f) => { const opt = new Option(f.replace("_", " "), f); opt.selected = f === formation; return opt; }));
      sel.onchange = () => { focusKey = "formation"; change({ do: "formation", formation: sel.value }); };
      parts.push(h("label", { class: "order-row" }, "Formation ", sel));
    }
    if (u.type !== "leader") parts.push(h("div", { class: "order-row" }, h("span", {}, "Facing "), dial(u)));
    return parts;
  }

  function stepsList() {
    const steps = body();
    const list = steps && steps.steps ? steps.steps : null;
    if (!list) return null;
    const u = unit() || {};
    let vertex = false;
    let formation = u.formation;
    const words = list.map((s) => {
      if (s.do === "formation") formation = s.formation;
      const row = frontRow(u, formation);
      vertex = Boolean(row && row.faces === "vertex");
      if (s.do === "enter") return `enter ${s.hex}`;
      if (s.do === "face") return `face ${compass(geo.angle(s.facing, vertex))}`;
      if (s.do === "formation") return `form ${s.formation.replace("_", " ")}`;
      return s.do;
    });
    return h("ol", { class: "order-steps", "aria-label": "Steps of the move" }, ...words.map((w) => h("li", {}, w)));
  }

  function render() {
    const a = document.activeElement;
    if (!focusKey && a && host.contains(a) && a.dataset) focusKey = a.dataset.okey || null;
    host.innerHTML = "";
    const u = unit();
    host.hidden = !enabled || !u || Boolean(S.replay);
    if (host.hidden) {
      if (enabled) $submit().textContent = "Submit move";
      showPathControls(true);
      return;
    }
    const ks = kinds();
    if (!o.kind || (S.available && !ks.includes(o.kind))) o.kind = ks[0] || null;
    const may = offered();
    host.append(h("div", { class: "order-kinds", role: "group", "aria-label": `Orders for ${u.id}` },
      h("strong", {}, `${u.name || u.id}: `),
      ...ks.map((k) => h("button", { type: "button", class: "order-kind", "data-order-kind": k, "data-okey": `kind-${k}`, "aria-pressed": String(k === o.kind), onclick: () => { focusKey = `kind-${k}`; setKind(k); } }, LABELS[k])),
      may.length ? null : h("span", { class: "hint" }, " (nothing offered to this unit now: the dry run says why)")));
    const k = o.kind;
    const row = (...c) => h("div", { class: "order-row" }, ...c);
    if (S.meta.id === "zoi" && k === "move") host.append(...zoiMove(u));
    // zoc: a path that ends on an enemy stack may overrun one of its units
    const victims = k === "move" && schemas.move.properties.overrun ? enemiesAt(u, S.path[S.path.length - 1]) : [];
    if (!victims.some((x) => x.id === o.overrun)) o.overrun = null;
    if (victims.length) {
      host.append(row(...victims.map((x) => h("button", { type: "button", class: "order-overrun", "data-overrun": x.id, "data-okey": `overrun-${x.id}`, "aria-pressed": String(o.overrun === x.id), onclick: () => { focusKey = `overrun-${x.id}`; o.overrun = o.overrun === x.id ? null : x.id; changed(); } }, `Overrun ${x.id}`))));
    }
    if (k === "melee_retreat") {
      const results = [...new Set(((S.board && S.board.melee_matrix) || []).map((m) => m.result))];
      const sel = h("select", { id: "order-result", "data-okey": "result", "aria-label": "Melee result" }, new Option("(none given)", ""),
        ...results.map((r) => { const m = S.board.melee_matrix.find((x) => x.result === r); const opt = new Option(`${r}: retreat ${m.retreat}, lose ${m.loss}`, r); opt.selected = r === o.result; return opt; }));
      sel.onchange = () => { focusKey = "result"; o.result = sel.value; changed(); };
      host.append(row(h("label", {}, "Melee result ", sel)), h("p", { class: "hint" }, "Click the hexes of the retreat, first the one next to the unit."));
    }
    if (k === "retreat") {
      const sel = h("select", { id: "order-length", "data-okey": "length", "aria-label": "Retreat length (from the combat result)" },
        ...[0, 1, 2, 3, 4, 5, 6].map((n) => { const opt = new Option(String(n), String(n)); opt.selected = n === o.length; return opt; }));
      sel.onchange = () => { focusKey = "length"; o.length = Number(sel.value); changed(); };
      host.append(row(h("label", {}, "Hexes to retreat (combat result) ", sel)), h("p", { class: "hint" }, "Click the hexes of the retreat in order."));
    }
    if (k === "trace_supply") {
      host.append(row(h("button", { type: "button", id: "order-search", "data-okey": "search", "aria-pressed": String(o.search), onclick: () => { focusKey = "search"; S.path = []; o.search = true; changed(); } }, "Let the referee find a line")),
        h("p", { class: "hint" }, "Or click the hexes of the supply line, from the unit towards a source."));
    }
    if (k === "charge" || (k === "move" && S.kind === "table")) host.append(h("p", { class: "hint" }, "Click the table for each waypoint; the yards are measured by the referee."));
    if (k === "fire") {
      const enemies = ((S.view.state && S.view.state.units) || []).filter((x) => x.side !== u.side && !x.destroyed);
      const sel = h("select", { id: "order-target", "data-okey": "target", "aria-label": "Target" }, new Option("(click an enemy counter)", ""),
        ...enemies.map((x) => { const opt = new Option(x.id, x.id); opt.selected = x.id === o.target; return opt; }));
      sel.onchange = () => { focusKey = "target"; o.target = sel.value || null; changed(); };
      host.append(row(h("label", {}, "Target ", sel)));
    }
    if (k === "hold") {
      const postures = ((schemas.hold.properties.posture || {}).enum) || ((schemas.hold.$defs || {}).Posture || {}).enum || ["holding", "advancing"];
      host.append(row(...postures.map((p) => h("button", { type: "button", class: "order-posture", "data-posture": p, "data-okey": `posture-${p}`, "aria-pressed": String(o.posture === p), onclick: () => { focusKey = `posture-${p}`; o.posture = p; changed(); } }, p))));
    }
    const steps = stepsList();
    if (steps) host.append(steps);
    if (live().length) host.append(row(h("button", { type: "button", id: "order-undo", "data-okey": "undo", onclick: () => { focusKey = "undo"; o.changes = live(); o.changes.pop(); changed(); } }, "Undo last change")));
    $submit().textContent = `Submit ${(LABELS[k] || "move").toLowerCase()}`;
    // a fire or a posture has no path: the Path box keeps only its Submit button
    showPathControls(!["fire", "hold"].includes(k));
    if (focusKey) {
      const node = host.querySelector(`[data-okey="${focusKey}"]`);
      focusKey = null;
      if (node && !node.disabled) node.focus();
    }
  }

  const $submit = () => document.getElementById("submit-move");

  function showPathControls(shown) {
    const input = document.getElementById("path-input");
    const label = input && input.closest("label");
    if (label) label.hidden = !shown;
    const clear = document.getElementById("path-clear");
    if (clear) clear.hidden = !shown;
  }

  function enemiesAt(u, hex) {
    if (!hex) return [];
    return ((S.view.state && S.view.state.units) || []).filter((x) => x.hex === hex && x.side !== u.side);
  }

  function setKind(k) {
    if (o.kind === k) return render();
    o.kind = k;
    o.changes = [];
    o.search = false;
    o.target = null;
    S.path = [];
    changed();
  }

  // The action the board and the controls describe, or null when there is nothing to judge yet.
  function body() {
    const u = S.selected;
    if (!u || !o.kind) return null;
    const path = S.path;
    switch (o.kind) {
      case "move": {
        const ch = live();
        if (o.overrun && path.length) return { kind: "move", unit: u, path, overrun: o.overrun };
        if (!ch.length) return path.length ? { kind: "move", unit: u, path } : null;
        const steps = [];
        for (let i = 0; i <= path.length; i++) {
          for (const c of ch) if (c.at === i) steps.push(c.step);
          if (i < path.length) steps.push({ do: "enter", hex: path[i] });
        }
        return { kind: "move", unit: u, steps };
      }
      case "melee_retreat":
        if (!path.length) return null;
        return { kind: "melee_retreat", unit: u, path, ...(o.result ? { result: o.result } : {}) };
      case "retreat":
        if (!path.length && o.length !== 0) return null;
        return { kind: "retreat", unit: u, path, length: o.length };
      case "trace_supply":
        if (path.length) return { kind: "trace_supply", unit: u, path };
        return o.search ? { kind: "trace_supply", unit: u } : null;
      case "charge":
        return path.length ? { kind: "charge", unit: u, path } : null;
      case "fire":
        return o.target ? { kind: "fire", unit: u, target: o.target } : null;
      case "hold":
        return { kind: "hold", unit: u, posture: o.posture };
      default:
        return null;
    }
  }

  return {
    enabled,
    render,
    body,
    kind: () => o.kind,
    // a new unit: its first offered order, nothing ordered yet
    select() {
      o.kind = null;
      o.changes = [];
      o.result = "";
      o.length = 1;
      o.target = null;
      o.search = false;
      o.overrun = null;
      o.posture = "holding";
      render();
    },
    // after a submit or a cleared path: the ordered parts go with the path
    reset() {
      o.changes = [];
      o.target = null;
      o.search = false;
      render();
    },
    // a path clicked: a supply line is no longer left to the referee
    pathEdited() {
      if (S.path.length) o.search = false;
      o.changes = live();
      render();
    },
    // "NE" for a facing number of this unit in this formation (hexside or vertex, as its row says)
    facingName(unitId, facing, formation) {
      const st = (S.view.state && S.view.state.units) || [];
      const u = st.find((x) => x.id === unitId);
      if (!u || facing === null || facing === undefined) return String(facing);
      const row = frontRow(u, formation || u.formation);
      return compass(geo.angle(facing, Boolean(row && row.faces === "vertex")));
    },
    takesPoints: () => enabled && !["fire", "hold"].includes(o.kind),
    // a counter clicked while firing: the target, if it is an enemy
    claimUnit(id) {
      if (!enabled || o.kind !== "fire" || !S.selected || id === S.selected) return false;
      const st = (S.view.state && S.view.state.units) || [];
      const me = st.find((x) => x.id === S.selected);
      const it = st.find((x) => x.id === id);
      if (!me || !it || it.side === me.side) return false;
      o.target = id;
      changed();
      return true;
    },
    cites,
  };
}
