// The `objective-zones` display: each zone's class, capacity, trafficability, garrison sectors
// and In-Transit box (from the ruleset's `zone` query), units on the table, and the last
// assault's revealed allocations and melee dice (from the event log).

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

export function createZoneBoard(host, { board, sideIndex, onUnit }) {
  host.innerHTML = "";
  const root = h("div", { class: "zones", role: "group", "aria-label": `Objective zones: ${board.title || ""}` });
  host.appendChild(root);
  const chip = (u, selected) => {
    const b = h("button", { type: "button", class: `chip side-${sideIndex(u.side)}${u.id === selected ? " selected" : ""}`, "data-unit": u.id, "aria-pressed": u.id === selected ? "true" : "false", "aria-label": `${u.id}: ${u.side} ${u.type}, ${u.grade}, ${u.men} men${u.sections ? `, ${u.sections} sections` : ""}` }, `${u.id} (${u.men}${u.sections ? `/${u.sections}g` : ""})`);
    b.addEventListener("click", () => onUnit && onUnit(u.id));
    return b;
  };
  return {
    kinds: new Set(),
    pz: { zoomIn() {}, zoomOut() {}, reset() {} },
    // displays: {zone id: zone query result}; reveals: {zone id: sealed_revealed event}
    render(units, displays, reveals, selected) {
      root.innerHTML = "";
      const byId = Object.fromEntries(units.map((u) => [u.id, u]));
      for (const [zid, z] of Object.entries(board.zones || {})) {
        const d = displays[zid] || {};
        const state = d.contested ? `contested by ${d.contested_by || "?"}` : "uncontested";
        const card = h("section", { class: `zone-card${d.contested ? " contested" : ""}`, "data-zone": zid, "aria-label": `Zone ${z.name}` },
          h("h4", {}, `${z.name} `, h("span", { class: "zone-class" }, `Class ${z.zone_class}`)),
          h("p", { class: "zone-facts" }, `capacity ${d.capacity ?? z.capacity} · trafficability ${d.trafficability ?? z.trafficability} · guns ≤ ${d.gun_limit ?? z.gun_limit}${z.road ? " · road" : ""} · ${state}`));
        const sectors = h("div", { class: "sectors" });
        for (const [sid, s] of Object.entries(d.sectors || {})) {
          sectors.appendChild(h("div", { class: `sector side-${s.holder ? sideIndex(s.holder) : "x"}`, "data-sector": sid },
            h("strong", {}, `Sector ${sid}`), ` ${s.holder ? `held by ${s.holder}` : "empty"} `,
            ...(s.units || []).map((id) => chip(byId[id] || { id, side: s.holder }, selected))));
        }
        card.appendChild(sectors);
        card.appendChild(h("div", { class: "transit" }, h("strong", {}, "In-Transit "), ...(d.in_transit || []).map((id) => chip(byId[id] || { id }, selected))));
        if ((d.guns || []).length) card.appendChild(h("div", { class: "guns" }, h("strong", {}, "Guns "), ...d.guns.map((id) => chip(byId[id] || { id }, selected))));
        const rev = reveals[zid];
        if (rev) card.appendChild(revealBox(rev));
        root.appendChild(card);
      }
      const table = units.filter((u) => !u.zone && !u.eliminated);
      root.appendChild(h("section", { class: "zone-card table-box", "aria-label": "Units on the table" }, h("h4", {}, "On the table"), ...table.map((u) => chip(u, selected))));
    },
  };
}

function revealBox(ev) {
  const box = h("div", { class: "assault", "aria-label": "Last assault: allocations and melee dice" }, h("strong", {}, `Assault revealed (event ${ev.seq})`));
  for (const [side, o] of Object.entries((ev.payload && ev.payload.orders) || {})) {
    box.appendChild(h("div", {}, `${side}: ${JSON.stringify((o.order || {}).sectors || o.order)}`));
  }
  const sectors = (ev.ruling && ev.ruling.details && ev.ruling.details.sectors) || {};
  for (const [sid, s] of Object.entries(sectors)) {
    const rolls = (s.rolls || []).map((r) => `${r.side || ""} ${JSON.stringify(r.dice)}`).join("; ");
    box.appendChild(h("div", { class: "melee-dice" }, `Sector ${sid}: ${rolls}`));
  }
  return box;
}
