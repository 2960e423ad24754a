// The `objective-zones` display: each zone's class, capacity, trafficability, garrison sectors
// and In-Transit box (from the ruleset's `zone` query), units on the table, and the last
// assault told in words (narrate.js: each die labelled, casualties, morale, capture), castings
// lost shown on the chips, and a zone whose every sector one side holds coloured as that side's.
import { narrate } from "./narrate.js";

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return node;
}

export function createZoneBoard(host, { board, sideIndex, onUnit, onZone }) {
  host.innerHTML = "";
  const root = h("div", { class: "zones", role: "group", "aria-label": `Objective zones: ${board.title || ""}` });
  host.appendChild(root);
  let lost = {};
  const chip = (u, selected) => {
    const loss = lost[u.id] ? ` −${lost[u.id]}` : "";
    const b = h("button", { type: "button", class: `chip side-${sideIndex(u.side)}${u.id === selected ? " selected" : ""}${u.engaged ? " engaged" : ""}`, "data-unit": u.id, "aria-pressed": u.id === selected ? "true" : "false", "aria-label": `${u.id}: ${u.side} ${u.type}, ${u.grade}, ${u.men} men${u.sections ? `, ${u.sections} sections` : ""}${loss ? `, lost ${lost[u.id]} castings so far` : ""}${u.engaged ? ", engaged" : ""}` }, `${u.id} (${u.men}${u.sections ? `/${u.sections}g` : ""})`, loss ? h("span", { class: "loss", "data-loss": String(lost[u.id]) }, loss) : null, u.engaged ? h("span", { class: "engaged-mark", title: "engaged" }, " ⚔") : null);
    b.addEventListener("click", (evt) => {
      evt.stopPropagation();
      if (onUnit) onUnit(u.id);
    });
    return b;
  };
  return {
    kinds: new Set(),
    pz: { zoomIn() {}, zoomOut() {}, reset() {} },
    // displays: {zone id: zone query result}; reveals: {zone id: sealed_revealed event}
    // losses: {unit: castings lost so far} (assaults, melees, bombardments; narrate.js)
    render(units, displays, reveals, selected, losses) {
      root.innerHTML = "";
      const byId = Object.fromEntries(units.map((u) => [u.id, u]));
      lost = { ...(losses || {}) };
      for (const [zid, z] of Object.entries(board.zones || {})) {
        const d = displays[zid] || {};
        const why = { assault: "under assault", split: "both sides hold sectors", engaged: "a melee goes on" }[d.contested_by] || d.contested_by || "";
        const state = d.contested ? `contested${why ? `: ${why}` : ""}` : "uncontested";
        const holders = new Set(Object.values(d.sectors || {}).map((s) => s.holder));
        const held = holders.size === 1 && [...holders][0] && [...holders][0] !== "engaged" ? [...holders][0] : null;
        const pick = h("button", { type: "button", class: "zone-pick", "data-zone-pick": zid, "aria-label": `Zone ${z.name}: pick it for the order being built` }, z.name);
        pick.addEventListener("click", (evt) => {
          evt.stopPropagation();
          if (onZone) onZone(zid);
        });
        const card = h("section", { class: `zone-card${d.contested ? " contested" : ""}${held ? ` held side-${sideIndex(held)}` : ""}`, "data-zone": zid, "data-held-by": held, "aria-label": `Zone ${z.name}${held ? `, held by ${held}` : ""}` },
          h("h4", {}, pick, " ", h("span", { class: "zone-class" }, `Class ${z.zone_class}`), held ? h("span", { class: "held-by" }, ` held by ${held}`) : null),
          h("p", { class: "zone-facts" }, `capacity ${d.capacity ?? z.capacity} · trafficability ${d.trafficability ?? z.trafficability} · guns ≤ ${d.gun_limit ?? z.gun_limit}${z.road ? " · road" : ""} · ${state}`));
        const sectors = h("div", { class: "sectors" });
        for (const [sid, s] of Object.entries(d.sectors || {})) {
          sectors.appendChild(h("div", { class: `sector side-${s.holder ? sideIndex(s.holder) : "x"}`, "data-sector": sid },
            h("strong", {}, `Sector ${sid}`), ` ${s.holder === "engaged" ? "engaged: both sides fight here" : s.holder ? `held by ${s.holder}` : "empty"} `,
            ...(s.units || []).map((id) => chip(byId[id] || { id, side: s.holder }, selected))));
        }
        card.appendChild(sectors);
        card.appendChild(h("div", { class: "transit" }, h("strong", {}, "In-Transit "), ...(d.in_transit || []).map((id) => chip(byId[id] || { id }, selected))));
        if ((d.guns || []).length) card.appendChild(h("div", { class: "guns" }, h("strong", {}, "Guns "), ...d.guns.map((id) => chip(byId[id] || { id }, selected))));
        const rev = reveals[zid];
        if (rev) card.appendChild(revealBox(rev));
        card.addEventListener("click", () => onZone && onZone(zid));
        root.appendChild(card);
      }
      const table = units.filter((u) => !u.zone && !u.eliminated);
      root.appendChild(h("section", { class: "zone-card table-box", "aria-label": "Units on the table" }, h("h4", {}, "On the table"), ...table.map((u) => chip(u, selected))));
    },
  };
}

function revealBox(ev) {
  const box = h("div", { class: "assault", "aria-label": "Last assault told in words: allocations, every die, casualties, morale and capture" }, h("strong", {}, `Assault revealed (event ${ev.seq})`));
  for (const [side, o] of Object.entries((ev.payload && ev.payload.orders) || {})) {
    const sectors = Object.entries(((o.order || {}).sectors) || {});
    box.appendChild(h("div", { class: "allocation", "data-side": side }, `${side} allocated: ${sectors.length ? sectors.map(([n, ids]) => `sector ${n}: ${ids.join(", ")}`).join("; ") : "nothing"}`));
  }
  const story = ev.ruling ? narrate(ev.ruling) : null;
  if (story) box.appendChild(story);
  return box;
}
