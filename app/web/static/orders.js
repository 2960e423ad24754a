// Orders by pointing (objective-zones, battlefield, and any ruleset whose actions have these
// fields): `GET /games/{id}/actions/available` says which kinds are open to the selected unit
// (and which are open to a zone, e.g. continue_melee); each kind gets a small form built from
// its JSON schema where every field is pointed at -- the unit is the one selected, a zone is
// clicked on the board (or picked from a list), a target is clicked (or picked from a list),
// sectors and battalions come from lists, a charge path and a kill-zone origin are clicked on
// the table. The whole order is dry-run (POST /rulings) after every change; it can be
// submitted only while the dry run says it is legal. The rulings decide; nothing is judged here.

const LABEL = {
  declare_assault: "Declare an assault", enter: "Enter a zone", exit: "Leave the zone", transfer: "Transfer to a sector",
  musketry: "Musketry", fire: "Fire", charge: "Charge", garrison_fire: "Garrison fire", bombard: "Bombard a zone",
  withdraw: "Withdraw", unlimber: "Unlimber", morale_test: "Test morale", continue_melee: "Continue the melee",
  support: "Support the assault", hold: "Posture (hold / advance)",
};
// what each field asks for, in words (the order waits for them before it is judged)
const FIELD = {
  zone: "pick the zone", target: "pick the target", origin: "click the point the guns fire from",
  path: "click the points of the path", units: "tick the assaulting units", to_sector: "pick the sector",
  sector: "pick the sector", posture: "pick the posture", dice: "pick the dice", normal_to_hit: "pick the hitting reading",
};
// kinds the console already plays another way (the Path box builds moves)
const ELSEWHERE = new Set(["move"]);

export function setupOrders(ctx) {
  const { S, h, submit, renderRuling, notify, problemText, citeButton, units, refresh } = ctx;
  const host = document.getElementById("zone-orders");
  const O = { kind: null, unit: null, values: {}, want: null, asked: null, ruling: null, seq: 0 };

  const schemaOf = (kind) => ((S.meta && S.meta.schemas && S.meta.schemas.actions) || {})[kind];
  const zoneBoard = () => {
    const b = S.board || {};
    return (b.zones && (b.zones.zones || b.zones)) || {};
  };
  const zoneName = (zid) => (zoneBoard()[zid] || {}).name || zid;
  const zoneUnit = (id) => {
    const st = S.view.state || {};
    return ((st.zones && st.zones.units) || st.units || []).find((u) => u.id === id) || null;
  };
  const mySides = () => (S.seat === "umpire" ? null : S.seat);

  function offered() {
    const av = S.available;
    if (!av || !S.seat) return { unitKinds: [], zoneKinds: [] };
    const all = (av.units || []).flatMap((u) => u.kinds);
    const entry = (av.units || []).find((u) => u.unit === S.selected);
    const unitKinds = entry ? entry.kinds.filter((k) => !ELSEWHERE.has(k) && schemaOf(k)) : [];
    const zoneKinds = (av.kinds || []).filter((k) => !all.includes(k) && schemaOf(k) && !(schemaOf(k).properties || {}).unit);
    return { unitKinds, zoneKinds, entry };
  }

  function arm(kind) {
    O.seq += 1;
    O.kind = kind;
    O.unit = (schemaOf(kind).properties || {}).unit ? S.selected : null;
    O.values = {};
    O.want = null;
    O.ruling = null;
    const props = schemaOf(kind).properties || {};
    const zu = O.unit ? zoneUnit(O.unit) : null;
    if (props.zone && zu && zu.zone) O.values.zone = zu.zone;
    if (props.units) O.values.units = S.selected ? [S.selected] : [];
    if (props.batteries) O.values.batteries = [];
    if (props.path) O.values.path = [];
    if (props.to_sector) O.values.to_sector = null;
    if (props.dice) O.values.dice = 1;
    if (props.normal_to_hit) O.values.normal_to_hit = 1;
    if (props.posture) O.values.posture = (props.posture.enum || [])[0] || "holding";
    // the first thing to point at: a target, a zone, an origin, the path
    O.want = props.origin ? "origin" : props.target ? "target" : props.zone && !O.values.zone ? "zone" : props.path ? "path" : null;
    render();
    dryRun();
    // the focus goes where the work is: the field the order waits for, else its first field
    const wanted = O.want === "zone" || O.want === "target" ? document.getElementById(`order-${O.want}`) : null;
    const first = wanted || host.querySelector(".order-form select, .order-form input, .order-form button");
    if (first) first.focus();
  }

  function disarm() {
    O.kind = null;
    O.values = {};
    O.want = null;
    O.ruling = null;
    O.asked = null;
    if (S.boardApi && S.boardApi.drawPath && S.kind === "table") S.boardApi.drawPath(null, [], null);
  }

  function body() {
    const out = { kind: O.kind };
    if (O.unit) out.unit = O.unit;
    for (const [k, v] of Object.entries(O.values)) {
      if (v === undefined) continue;
      if (k === "path" && !v.length) continue;
      out[k] = v;
    }
    return out;
  }

  // The fields the schema requires that are not pointed at yet (nothing to judge until they are)
  function missing(action) {
    return (schemaOf(O.kind).required || []).filter((k) => action[k] === undefined);
  }

  async function dryRun() {
    if (!O.kind) return;
    const action = body();
    const asked = JSON.stringify(action);
    O.asked = asked;
    const submitBtn = host.querySelector(".order-submit");
    if (submitBtn) submitBtn.disabled = true;
    const wanting = missing(action);
    if (wanting.length) {
      // an order just begun is not an error: say what it waits for, ask for no ruling yet
      O.ruling = null;
      renderRuling(null);
      document.getElementById("ruling").append(h("p", { class: "hint waiting-for-fields", "data-missing": wanting.join(" ") }, `To complete the order: ${wanting.map((k) => FIELD[k] || k).join(", ")}.`));
      document.body.dataset.orderFor = asked;
      return;
    }
    try {
      const r = (await S.api.request("POST", `/games/${S.gameId}/rulings`, { body: action })).body;
      if (O.asked !== asked) return;
      O.ruling = r;
      renderRuling(r);
      const btn = host.querySelector(".order-submit");
      if (btn) {
        btn.disabled = !r.legal;
        btn.title = r.legal ? "" : "The dry run says this order is illegal: change it first.";
      }
    } catch (err) {
      if (O.asked !== asked) return;
      O.ruling = null;
      renderRuling(null);
      document.getElementById("ruling").append(h("p", { class: "verdict illegal" }, problemText(err)));
    }
    document.body.dataset.orderFor = asked;
  }

  async function send() {
    if (!O.ruling || !O.ruling.legal) return;
    const action = body();
    const unit = O.unit || S.selected;
    const mine = O.seq;
    document.body.dataset.submitting = "true";
    const res = await submit(`/games/${S.gameId}/actions`, action);
    // another order may have been started meanwhile (the page refreshed from the stream)
    if (res && mine === O.seq) {
      disarm();
      renderRuling(res.ruling);
      render();
      const back = unit && document.querySelector(`#unit-list [data-unit="${CSS.escape(unit)}"]`);
      if (back) back.focus();
    }
    document.body.dataset.submitting = "false";
  }

  const changed = () => {
    render();
    dryRun();
  };

  // -- the fields, one per schema property ----------------------------------------------
  function zoneField() {
    const zones = zoneBoard();
    const sel = h("select", { id: "order-zone", "aria-label": "Zone (or click a zone on the board)" }, new Option("— pick a zone —", ""),
      ...Object.entries(zones).map(([zid, z]) => new Option(`${z.name || zid} (Class ${z.zone_class})`, zid)));
    sel.value = O.values.zone || "";
    sel.onchange = () => { O.values.zone = sel.value || undefined; O.want = null; changed(); };
    const pick = h("button", { type: "button", class: `pick${O.want === "zone" ? " waiting" : ""}`, "aria-pressed": String(O.want === "zone"), onclick: () => { O.want = "zone"; render(); } }, "◎ click it on the board");
    return h("div", { class: "form-row" }, h("label", { for: "order-zone" }, "Zone"), sel, " ", pick);
  }

  function unitField(name, label, candidates) {
    const sel = h("select", { id: `order-${name}`, "aria-label": `${label} (or click it on the board)` }, new Option("— pick —", ""),
      ...candidates.map((u) => new Option(`${u.id} (${u.side} ${u.type || ""})`, u.id)));
    sel.value = O.values[name] || "";
    sel.onchange = () => { O.values[name] = sel.value || undefined; O.want = null; changed(); };
    const pick = h("button", { type: "button", class: `pick${O.want === name ? " waiting" : ""}`, "aria-pressed": String(O.want === name), onclick: () => { O.want = name; render(); } }, "◎ click it on the board");
    return h("div", { class: "form-row" }, h("label", { for: `order-${name}` }, label), sel, " ", pick);
  }

  function checkList(name, label, candidates) {
    const chosen = new Set(O.values[name] || []);
    return h("fieldset", { class: "order-checks", "data-field": name }, h("legend", {}, label),
      ...candidates.map((u) => {
        const box = h("input", { type: "checkbox", value: u.id, "data-unit": u.id, checked: chosen.has(u.id) });
        box.onchange = () => {
          const now = new Set(O.values[name] || []);
          if (box.checked) now.add(u.id); else now.delete(u.id);
          O.values[name] = [...now];
          changed();
          const again = host.querySelector(`[data-field=${name}] input[value="${CSS.escape(u.id)}"]`);
          if (again) again.focus();
        };
        return h("label", { class: "check" }, box, ` ${u.id} (${u.men !== undefined ? `${u.men} castings` : u.type})`);
      }));
  }

  function sectorField(name, nullLabel) {
    const z = zoneBoard()[O.values.zone] || {};
    const cap = z.capacity || 0;
    const sel = h("select", { id: `order-${name}`, "aria-label": name === "to_sector" ? "To sector" : "Sector" },
      new Option(nullLabel, ""), ...Array.from({ length: cap }, (_, i) => new Option(`sector ${i + 1}`, String(i + 1))));
    sel.value = O.values[name] ? String(O.values[name]) : "";
    sel.onchange = () => { O.values[name] = sel.value ? Number(sel.value) : null; changed(); };
    return h("div", { class: "form-row" }, h("label", { for: `order-${name}` }, name === "to_sector" ? "To" : "Sector"), sel);
  }

  function numberField(name, label, min, max) {
    const sel = h("select", { id: `order-${name}`, "aria-label": label }, ...Array.from({ length: max - min + 1 }, (_, i) => new Option(String(min + i), String(min + i))));
    sel.value = String(O.values[name]);
    sel.onchange = () => { O.values[name] = Number(sel.value); changed(); };
    return h("div", { class: "form-row" }, h("label", { for: `order-${name}` }, label), sel);
  }

  function pointsField(name) {
    const pts = name === "path" ? O.values.path || [] : O.values.origin ? [O.values.origin] : [];
    const pick = h("button", { type: "button", class: `pick${O.want === name ? " waiting" : ""}`, "aria-pressed": String(O.want === name), onclick: () => { O.want = name; render(); } }, name === "path" ? "◎ click the charge's points on the table" : "◎ click a point on the zone's border");
    const clearBtn = h("button", { type: "button", onclick: () => { O.values[name] = name === "path" ? [] : undefined; O.want = name; changed(); } }, "Clear");
    return h("div", { class: "form-row", "data-field": name }, h("span", { class: "field-name" }, name === "path" ? "Path: " : "From: "),
      h("code", { class: "points" }, pts.length ? pts.map((p) => `${p[0]},${p[1]} yd`).join(" → ") : "none yet"), " ", pick, " ", clearBtn);
  }

  function formFor(kind) {
    const props = schemaOf(kind).properties || {};
    const rows = [];
    const all = units();
    const mineSide = O.unit ? (all.find((u) => u.id === O.unit) || {}).side : mySides();
    const enemies = all.filter((u) => !u.destroyed && !u.eliminated && u.side !== mineSide);
    if (O.unit) rows.push(h("p", { class: "order-unit" }, h("strong", {}, O.unit), ` ${(all.find((u) => u.id === O.unit) || {}).side || ""}`));
    if (props.units) {
      const may = new Set(((S.available && S.available.units) || []).filter((u) => u.kinds.includes(kind)).map((u) => u.unit));
      rows.push(checkList("units", "Assaulting units (battalions)", all.filter((u) => may.has(u.id) && u.type !== "artillery")));
    }
    if (props.batteries) {
      rows.push(checkList("batteries", "Batteries named as support", all.filter((u) => u.side === mineSide && u.type === "artillery" && !u.zone)));
    }
    if (props.zone) rows.push(zoneField());
    if (props.sector) rows.push(sectorField("sector", "any free sector"));
    if (props.to_sector) rows.push(sectorField("to_sector", "the In-Transit box"));
    if (props.origin) rows.push(pointsField("origin"));
    if (props.target) rows.push(unitField("target", "Target", enemies));
    if (props.path) rows.push(pointsField("path"));
    if (props.by_road) {
      const box = h("input", { type: "checkbox", id: "order-by_road", checked: Boolean(O.values.by_road) });
      box.onchange = () => { O.values.by_road = box.checked; changed(); };
      rows.push(h("div", { class: "form-row" }, h("label", { for: "order-by_road" }, box, " by the road exit")));
    }
    if (props.dice) rows.push(numberField("dice", "Dice the normal fire rules give", 1, 30));
    if (props.normal_to_hit) rows.push(numberField("normal_to_hit", "Highest hitting reading in the open", 0, 9));
    if (props.posture) {
      const sel = h("select", { id: "order-posture", "aria-label": "Posture" }, ...(props.posture.enum || ["holding", "advancing"]).map((p) => new Option(p, p)));
      sel.value = O.values.posture;
      sel.onchange = () => { O.values.posture = sel.value; changed(); };
      rows.push(h("div", { class: "form-row" }, h("label", { for: "order-posture" }, "Posture"), sel));
    }
    const help = schemaOf(kind).description;
    return h("div", { class: "order-form", "data-kind": kind },
      help ? h("p", { class: "hint" }, help.replace(/``([^`]+)``/g, "$1")) : "",
      O.want ? h("p", { class: "hint waiting-for", role: "status" }, {
        target: "Click the target on the board (or pick it from the list).",
        zone: "Click a zone on the board (or pick it from the list).",
        origin: "Click the point on the zone's border the guns fire from.",
        path: "Click the points of the charge on the table.",
      }[O.want] || "") : "",
      ...rows,
      h("div", { class: "order-buttons" },
        h("button", { type: "button", class: "order-submit", disabled: !(O.ruling && O.ruling.legal), onclick: send }, `Submit: ${LABEL[kind] || kind}`),
        h("button", { type: "button", class: "order-cancel", onclick: () => {
          disarm();
          renderRuling(null);
          render();
          // the focus goes back to the order's button (the Cancel button is gone)
          const back = document.getElementById(`order-kind-${kind}`);
          if (back) back.focus();
        } }, "Cancel")));
  }

  function render() {
    draw();
    syncPathBox();
  }

  // The Path box builds moves (battlefield): it is offered only while the selected unit may
  // move (actions/available) and no other order is being built (that order has its own Submit).
  function syncPathBox() {
    const box = document.getElementById("path-box");
    const move = schemaOf("move");
    if (!box || !move || !(move.properties || {}).path) return;
    const entry = ((S.available && S.available.units) || []).find((u) => u.unit === S.selected);
    const mayMove = !S.available || !S.selected || Boolean(entry && entry.kinds.includes("move"));
    box.hidden = Boolean(O.kind) || !mayMove || Boolean(S.replay);
  }

  function draw() {
    if (!host) return;
    const focusedId = document.activeElement && host.contains(document.activeElement) ? document.activeElement.id : null;
    host.innerHTML = "";
    host.hidden = true; // an empty box takes no room (shown again below when there is an order to offer)
    if (!S.seat || S.replay) return;
    const { unitKinds, zoneKinds } = offered();
    if (O.kind && O.unit && O.unit !== S.selected) disarm();
    // (while the answer is being read again, S.available is null: keep the order being built)
    if (O.kind && S.available && !unitKinds.includes(O.kind) && !zoneKinds.includes(O.kind)) disarm();
    if (!unitKinds.length && !zoneKinds.length) return;
    host.hidden = false;
    const buttons = (kinds, who) => kinds.map((k) => h("button", { type: "button", id: `order-kind-${k}`, class: `order-kind${O.kind === k ? " armed" : ""}`, "data-kind": k, "aria-pressed": String(O.kind === k), onclick: () => (O.kind === k ? (disarm(), renderRuling(null), render()) : arm(k)) }, LABEL[k] || k));
    host.append(h("h3", {}, "Orders"));
    if (unitKinds.length) host.append(h("div", { class: "order-kinds", role: "group", "aria-label": `Orders for ${S.selected}` }, h("span", { class: "hint" }, `${S.selected}: `), ...buttons(unitKinds, S.selected)));
    if (zoneKinds.length) host.append(h("div", { class: "order-kinds", role: "group", "aria-label": "Orders for a zone" }, h("span", { class: "hint" }, "Zone: "), ...buttons(zoneKinds, null)));
    if (O.kind) host.append(formFor(O.kind));
    if (focusedId) {
      const again = document.getElementById(focusedId);
      if (again) again.focus();
    }
    drawOnBoard();
  }

  function drawOnBoard() {
    if (S.kind !== "table" || !S.boardApi || !O.kind) return;
    const u = units().find((x) => x.id === O.unit);
    if (O.values.path && O.values.path.length && u) S.boardApi.drawPath(u.at, O.values.path, null, null);
    else if (O.values.origin) S.boardApi.drawPath(O.values.origin, [O.values.origin], null, null);
  }

  // A click near the outline of the firing battery's zone lands on it: the nearest point of the
  // outline (drawing, not judging: the ruling still says whether it is on the border).
  function onBorder(p) {
    const zu = O.unit ? zoneUnit(O.unit) : null;
    const poly = zu && zu.zone && S.board.outlines ? S.board.outlines[zu.zone] : null;
    if (!poly) return p;
    let best = null;
    for (let i = 0; i < poly.length; i++) {
      const [ax, ay] = poly[i];
      const [bx, by] = poly[(i + 1) % poly.length];
      const dx = bx - ax;
      const dy = by - ay;
      const t = Math.max(0, Math.min(1, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy || 1)));
      const q = [ax + t * dx, ay + t * dy];
      const d = Math.hypot(q[0] - p[0], q[1] - p[1]);
      if (!best || d < best.d) best = { d, q };
    }
    if (!best || best.d > 25) return p;
    return best.q.map((v) => Math.round(v * 10) / 10);
  }

  // -- picks from the board: true when the order took the click ------------------------------
  function pickUnit(id) {
    if (!O.kind) return false;
    if (O.want === "target") {
      O.values.target = id;
      O.want = null;
      changed();
      const f = document.getElementById("order-target");
      if (f) f.focus();
      return true;
    }
    if (O.kind === "declare_assault" && id !== O.unit) {
      const may = ((S.available && S.available.units) || []).some((u) => u.unit === id && u.kinds.includes(O.kind));
      if (may) {
        const now = new Set(O.values.units || []);
        if (now.has(id)) now.delete(id); else now.add(id);
        O.values.units = [...now];
        changed();
        return true;
      }
    }
    return false;
  }

  function pickZone(zid) {
    if (!O.kind || !(schemaOf(O.kind).properties || {}).zone) return false;
    if (O.want !== "zone" && O.values.zone && O.want) return false;
    O.values.zone = zid;
    O.want = (schemaOf(O.kind).properties || {}).target && !O.values.target ? "target" : null;
    changed();
    const f = document.getElementById("order-zone");
    if (f) f.focus();
    return true;
  }

  function pickPoint(p, zid) {
    if (!O.kind) return false;
    if (O.want === "origin") {
      O.values.origin = onBorder(p);
      O.want = (schemaOf(O.kind).properties || {}).target && !O.values.target ? "target" : null;
      changed();
      return true;
    }
    if (O.want === "path" || (O.values.path && O.want === null && (schemaOf(O.kind).properties || {}).path)) {
      O.values.path = [...(O.values.path || []), p];
      changed();
      return true;
    }
    if (zid && (schemaOf(O.kind).properties || {}).zone) return pickZone(zid);
    return true; // an order is being built: a stray click selects nothing
  }

  return { render, pickUnit, pickZone, pickPoint, active: () => Boolean(O.kind), reset: () => {
    // Escape: the order is dropped; the focus goes back to its button if it was in the box
    const k = O.kind;
    const inside = host && host.contains(document.activeElement);
    disarm();
    renderRuling(null);
    render();
    const back = k && document.getElementById(`order-kind-${k}`);
    if (back && (inside || document.activeElement === document.body)) back.focus();
  }, refresh };
}
