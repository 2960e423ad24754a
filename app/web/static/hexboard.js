// The `zoc` / `zoi` hex board as SVG. Drawing geometry only (where a hex id sits on screen):
// every judgement (zones, reachability, stops) comes from the API's queries and rulings.
import { el, text, clear, defs, panZoom, PALETTE } from "./svg.js";

const SIZE = 30;
const SQ3 = Math.sqrt(3);

export function hexLayout(layout) {
  const L = { orientation: "flat", offset: "odd", col_digits: 2, row_digits: 2, ...(layout || {}) };
  const parse = (id) => {
    const m = /^([A-Za-z]*)([0-9]+)$/.exec(id);
    if (!m || m[2].length !== L.col_digits + L.row_digits) return null;
    return { prefix: m[1], col: Number(m[2].slice(0, L.col_digits)), row: Number(m[2].slice(L.col_digits)) };
  };
  const axial = (h) => {
    const par = (n) => (L.offset === "odd" ? (n - (n & 1)) / 2 : (n + (n & 1)) / 2);
    if (L.orientation === "flat") return [h.col, h.row - par(h.col)];
    return [h.col - par(h.row), h.row];
  };
  const center = (id) => {
    const h = parse(id);
    if (!h) return null;
    const [q, r] = axial(h);
    if (L.orientation === "flat") return { x: 1.5 * q * SIZE, y: SQ3 * (r + q / 2) * SIZE };
    return { x: SQ3 * (q + r / 2) * SIZE, y: 1.5 * r * SIZE };
  };
  const corners = (c) => {
    const pts = [];
    for (let i = 0; i < 6; i++) {
      const a = (Math.PI / 180) * (60 * i + (L.orientation === "flat" ? 0 : 30));
      pts.push([c.x + SIZE * Math.cos(a), c.y + SIZE * Math.sin(a)]);
    }
    return pts;
  };
  // Screen angle (degrees, clockwise from east) of hexside direction d, or of vertex d.
  const angle = (d, vertex) => (L.orientation === "flat" ? -90 : -60) + 60 * d + (vertex ? 30 : 0);
  return { L, parse, center, corners, angle };
}

const TERRAIN = {
  clear: "#f7f4ea", city: "#c9c9c9", town: "#c9c9c9", forest: "#b9d9b0", woods: "#b9d9b0",
  rough: "#e3cfa6", hills: "#d9c08c", swamp: "#a9d3cf", marsh: "#a9d3cf", mountain: "#b59f86",
  all_sea: "#8fbfe0", sea: "#8fbfe0", lake: "#8fbfe0",
};
const HEXSIDE = { mountain: "#6b4f2a", river: "#0072B2", major_river: "#0072B2", all_sea: "#56B4E9", strait: "#56B4E9", beachhead: "#E69F00", canal: "#56B4E9", lake: "#56B4E9", border: "#777" };

const terrainOf = (v) => (typeof v === "string" ? v : (v && v.terrain) || "clear");

function edge(geo, a, b) {
  const ca = geo.center(a);
  const cb = geo.center(b);
  if (!ca || !cb) return null;
  const mx = (ca.x + cb.x) / 2;
  const my = (ca.y + cb.y) / 2;
  const len = Math.hypot(cb.x - ca.x, cb.y - ca.y) || 1;
  const px = (-(cb.y - ca.y) / len) * (SIZE / 2);
  const py = ((cb.x - ca.x) / len) * (SIZE / 2);
  return { x1: mx - px, y1: my - py, x2: mx + px, y2: my + py, mx, my };
}

export function createHexBoard(host, { board, sideIndex, onHex, onUnit, onHover }) {
  clear(host);
  // the board's size on screen, read while it is empty (no layout of thousands of hexes)
  const hostBox = { w: host.clientWidth, h: host.clientHeight };
  const geo = hexLayout(board.layout);
  const svg = el("svg", { class: "hexmap", role: "img", "aria-label": `Hex map: ${board.title || board.name || ""}` }, host);
  defs(svg);
  const layers = {};
  for (const name of ["terrain", "hexsides", "zones", "reach", "supply", "fronts", "path", "units", "labels", "marks"]) {
    layers[name] = el("g", { class: `layer-${name}` }, svg);
  }
  // drawn over the hexes but never the target of a click or a tap (the hex under them is)
  for (const name of ["reach", "supply", "fronts", "path", "labels", "marks"]) layers[name].setAttribute("pointer-events", "none");
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const terrains = new Set();
  const hexIds = Object.keys(board.hexes || {});
  for (const id of hexIds) {
    const c = geo.center(id);
    if (!c) continue;
    const t = terrainOf(board.hexes[id]);
    terrains.add(t);
    const pts = geo.corners(c);
    el("polygon", { points: pts.map((p) => p.join(",")).join(" "), fill: TERRAIN[t] || "#eee", stroke: "#8a8a8a", "stroke-width": 1, "data-hex": id, class: `hex t-${t}` }, layers.terrain);
    text(layers.labels, c.x, c.y - SIZE * 0.62, id, { class: "hexid", "text-anchor": "middle" });
    if (t !== "clear") text(layers.labels, c.x, c.y + SIZE * 0.78, t.replace("_", " "), { class: "terrain-label", "text-anchor": "middle" });
    minX = Math.min(minX, c.x); minY = Math.min(minY, c.y); maxX = Math.max(maxX, c.x); maxY = Math.max(maxY, c.y);
  }
  const features = new Set();
  for (const [side, kinds] of Object.entries(board.hexsides || {})) {
    const [a, b] = side.split("/");
    const e = edge(geo, a, b);
    if (!e) continue;
    (kinds || []).forEach((k, i) => {
      features.add(k);
      const line = el("line", { x1: e.x1, y1: e.y1, x2: e.x2, y2: e.y2, stroke: HEXSIDE[k] || "#444", "stroke-width": 6 - i * 2, "stroke-linecap": "round", class: `hexside hs-${k}`, "data-hexside": side }, layers.hexsides);
      el("title", {}, line).textContent = `${k.replace("_", " ")} hexside ${side}`;
    });
  }
  const pad = SIZE * 1.5;
  const box = { x: minX - pad, y: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad };
  // hex ids and terrain names too small to read (under ~4.5 px on screen, e.g. a 2,000-hex map
  // seen whole) are not drawn: thousands of unreadable texts cost the browser a paint per click
  const tiny = (perPixel) => 7 / perPixel < 4.5;
  if (hostBox.w && hostBox.h) svg.classList.toggle("tiny-labels", tiny(Math.max(box.w / hostBox.w, box.h / hostBox.h)));
  const pz = panZoom(svg, box, host, (perPixel) => svg.classList.toggle("tiny-labels", tiny(perPixel)));

  svg.addEventListener("click", (evt) => {
    const counter = evt.target.closest("[data-unit]");
    const hexNode = evt.target.closest("[data-hex]");
    if (counter) onUnit && onUnit(counter.getAttribute("data-unit"), counter.getAttribute("data-at"));
    else if (hexNode) onHex && onHex(hexNode.getAttribute("data-hex"));
  });
  svg.addEventListener("mouseover", (evt) => {
    const hexNode = evt.target.closest("[data-hex],[data-at]");
    if (hexNode && onHover) onHover(hexNode.getAttribute("data-hex") || hexNode.getAttribute("data-at"));
  });

  const hexPoly = (id, attrs, parent) => {
    const c = geo.center(id);
    if (!c) return null;
    return el("polygon", { points: geo.corners(c).map((p) => p.join(",")).join(" "), "data-hex": id, ...attrs }, parent);
  };

  return {
    geo,
    svg,
    pz,
    terrains,
    features,
    drawUnits(units, markers, frontTable, selected) {
      clear(layers.units);
      const byHex = {};
      for (const u of units) {
        if (!u.hex || u.destroyed || u.eliminated) continue;
        (byHex[u.hex] = byHex[u.hex] || []).push(u);
      }
      for (const [hex, list] of Object.entries(byHex)) {
        const c = geo.center(hex);
        if (!c) continue;
        list.forEach((u, i) => {
          const off = (i - (list.length - 1) / 2) * 7;
          const w = SIZE * 0.95;
          const g = el("g", { class: `counter${u.id === selected ? " selected" : ""}`, "data-unit": u.id, "data-at": hex, tabindex: 0, role: "button", "aria-label": unitLabel(u), transform: `translate(${c.x + off},${c.y + off})` }, layers.units);
          const colour = PALETTE.sides[sideIndex(u.side)] || "#555";
          el("rect", { x: -w / 2, y: -w / 2, width: w, height: w, rx: 3, fill: colour, stroke: u.id === selected ? PALETTE.stop : "#111", "stroke-width": u.id === selected ? 4 : 1.2 }, g);
          text(g, 0, -3, abbrev(u), { class: "counter-type", "text-anchor": "middle" });
          text(g, 0, 10, strength(u), { class: "counter-steps", "text-anchor": "middle" });
          if (u.formation) text(g, -w / 2 + 2, w / 2 - 2, u.formation.slice(0, 3), { class: "counter-form" });
          if (u.facing !== undefined && u.facing !== null && frontTable) {
            const ft = frontTable[`${u.type}.${u.formation}`];
            if (!ft || ft.faces !== "all") {
              const a = (geo.angle(u.facing, ft && ft.faces === "vertex") * Math.PI) / 180;
              el("line", { x1: 0, y1: 0, x2: Math.cos(a) * w * 0.75, y2: Math.sin(a) * w * 0.75, stroke: "#fff", "stroke-width": 2.5, "marker-end": "url(#arrow)", class: "facing" }, g);
            }
          }
          el("title", {}, g).textContent = unitLabel(u);
          g.addEventListener("keydown", (evt) => {
            if (evt.key === "Enter" || evt.key === " ") {
              evt.preventDefault();
              onUnit && onUnit(u.id, hex);
            }
          });
        });
      }
      // the selected counter is drawn last: on top of its stack-mates (same place in the stack)
      const chosen = layers.units.querySelector(".counter.selected");
      if (chosen) layers.units.appendChild(chosen);
      for (const m of markers || []) {
        const c = geo.center(m.hex);
        if (!c) continue;
        if (m.hexside) {
          const [a, b] = m.hexside.split("/");
          const e = edge(geo, a, b);
          if (e) el("line", { x1: e.x1, y1: e.y1, x2: e.x2, y2: e.y2, stroke: HEXSIDE.beachhead, "stroke-width": 4, "stroke-dasharray": "6 3", class: "marker-hexside" }, layers.units);
        }
        const kind = m.kind || m.type || "marker";
        const g = el("g", { class: "marker", "data-marker": m.id || kind, transform: `translate(${c.x - SIZE * 0.55},${c.y + SIZE * 0.35})` }, layers.units);
        el("polygon", { points: "0,-8 8,0 0,8 -8,0", fill: "#F0E442", stroke: PALETTE.sides[sideIndex(m.side)] || "#111", "stroke-width": 2 }, g);
        text(g, 0, 3, kind.slice(0, 1).toUpperCase(), { class: "marker-letter", "text-anchor": "middle" });
        el("title", {}, g).textContent = `${kind.replace("_", " ")} marker${m.side ? ` (${m.side})` : ""} in ${m.hex}${m.hexside ? `, hexside ${m.hexside}` : ""}`;
      }
    },
    // zones: [{hex, negated, title}], blocked: [{from, to, title}], fronts: [hexside ids]
    drawZones(zones, blocked, fronts) {
      clear(layers.zones);
      clear(layers.fronts);
      for (const z of zones) {
        const p = hexPoly(z.hex, { class: `zone${z.negated ? " negated" : ""}`, fill: z.negated ? "url(#pat-negated)" : "url(#pat-zone)", stroke: z.negated ? PALETTE.negated : PALETTE.zone, "stroke-width": 2, "stroke-dasharray": z.negated ? "4 3" : null, "pointer-events": "none" }, layers.zones);
        if (p) el("title", {}, p).textContent = z.title;
      }
      for (const b of blocked || []) {
        const e = edge(geo, b.from, b.to);
        if (!e) continue;
        const g = el("g", { class: "blocked", "data-blocked": `${b.from}/${b.to}` }, layers.zones);
        el("line", { x1: e.x1, y1: e.y1, x2: e.x2, y2: e.y2, stroke: PALETTE.blocked, "stroke-width": 5, "stroke-dasharray": "5 4" }, g);
        text(g, e.mx, e.my + 4, "✕", { class: "blocked-x", "text-anchor": "middle" });
        el("title", {}, g).textContent = b.title;
      }
      for (const f of fronts || []) {
        const [a, b] = f.split("/");
        const e = edge(geo, a, b);
        if (e) el("line", { x1: e.x1, y1: e.y1, x2: e.x2, y2: e.y2, stroke: "#000", "stroke-width": 3, class: "front", "data-hexside": f }, layers.fronts);
      }
    },
    // reach: {hex: {cost, must_stop}}, unreachable: {hex: reasons}
    drawReach(reach, unreachable) {
      clear(layers.reach);
      for (const [hex, r] of Object.entries(reach || {})) {
        const c = geo.center(hex);
        if (!c) continue;
        hexPoly(hex, { class: `reach${r.must_stop ? " must-stop" : ""}`, fill: "none", stroke: PALETTE.reach, "stroke-width": 3, "stroke-dasharray": r.must_stop ? "2 3" : null, "pointer-events": "none" }, layers.reach);
        text(layers.reach, c.x + SIZE * 0.55, c.y + 4, `${r.cost}${r.must_stop ? "!" : ""}`, { class: "cost", "text-anchor": "middle", "data-reach": hex });
      }
      for (const hex of Object.keys(unreachable || {})) {
        const c = geo.center(hex);
        if (c) text(layers.reach, c.x + SIZE * 0.55, c.y + 4, "⊘", { class: "unreach", "text-anchor": "middle", "data-unreach": hex });
      }
    },
    // lines: [{side, path: [hex…]}] as the supply query found them
    drawSupply(lines) {
      clear(layers.supply);
      for (const line of lines || []) {
        const pts = line.path.map((h) => geo.center(h)).filter(Boolean);
        if (pts.length > 1) el("polyline", { points: pts.map((p) => `${p.x},${p.y}`).join(" "), fill: "none", stroke: PALETTE.sides[sideIndex(line.side)] || "#333", "stroke-width": 2.5, "stroke-dasharray": "1 5", "stroke-linecap": "round", class: "supply", "data-unit": null }, layers.supply);
      }
    },
    // extra.marks: [{hex, text, title}] what the ruling does to a counter there (−1: an increment lost)
    drawPath(start, path, stopHex, _yards, extra) {
      clear(layers.path);
      clear(layers.marks);
      const seen = {};
      for (const m of (extra && extra.marks) || []) {
        const c = geo.center(m.hex);
        if (!c) continue;
        const n = (seen[m.hex] = (seen[m.hex] || 0) + 1) - 1;
        const g = el("g", { class: "loss-mark", "data-hex": m.hex, "data-loss-unit": m.unit || null, transform: `translate(${c.x + SIZE * 0.62},${c.y - SIZE * 0.5 + n * 20})` }, layers.marks);
        el("circle", { r: 10, fill: "#D55E00", stroke: "#000", "stroke-width": 1.5 }, g);
        text(g, 0, 4, m.text, { class: "loss-text", "text-anchor": "middle" });
        el("title", {}, g).textContent = m.title || m.text;
      }
      const pts = [start, ...path].map((h) => geo.center(h)).filter(Boolean);
      if (pts.length > 1) el("polyline", { points: pts.map((p) => `${p.x},${p.y}`).join(" "), fill: "none", stroke: PALETTE.path, "stroke-width": 3, "marker-end": "url(#arrow)", class: "move-path" }, layers.path);
      path.forEach((h, i) => {
        const c = geo.center(h);
        if (c) text(layers.path, c.x - SIZE * 0.5, c.y + 4, String(i + 1), { class: "step-no", "text-anchor": "middle" });
      });
      if (stopHex) hexPoly(stopHex, { class: "stop-hex", fill: "none", stroke: "#000", "stroke-width": 5, "pointer-events": "none" }, layers.path);
      if (stopHex) hexPoly(stopHex, { fill: "none", stroke: PALETTE.stop, "stroke-width": 3, "pointer-events": "none" }, layers.path);
    },
  };
}

export function unitLabel(u) {
  const bits = [u.name || u.id, `(${u.id})`, u.side, u.type];
  if (u.steps !== undefined) bits.push(`${u.steps} steps`);
  if (u.increments !== undefined) bits.push(`${u.increments} increments`);
  if (u.formation) bits.push(u.formation);
  if (u.facing !== undefined && u.facing !== null) bits.push(`facing ${u.facing}`);
  if (u.hex) bits.push(`in ${u.hex}`);
  return bits.filter(Boolean).join(" ");
}

function abbrev(u) {
  const t = u.type || "?";
  return { infantry: "INF", cavalry: "CAV", artillery: "ART", army: "ARMY", hq: "HQ", leader: "LDR", armor: "ARM", armour: "ARM", mechanized: "MECH" }[t] || t.slice(0, 4).toUpperCase();
}

function strength(u) {
  if (u.steps !== undefined) return `${u.steps}s`;
  if (u.increments !== undefined) return `${u.increments}`;
  return "";
}

export const TERRAIN_COLOURS = TERRAIN;
export const HEXSIDE_COLOURS = HEXSIDE;
