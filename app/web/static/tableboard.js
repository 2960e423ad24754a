// The `terrain` table drawn to scale in yards (1 SVG unit = 1 yard). Measures and sight
// lines come from the API's rulings and queries.
import { el, text, clear, defs, panZoom, PALETTE } from "./svg.js";

const LABEL_PX = 12;

export const FEATURE_COLOURS = {
  heavy_woods: "#5e9c5e", light_woods: "#a6d49b", orchard: "#c4e3a5", high_grass: "#e8e39a",
  rough: "#d7bf94", marsh: "#a9d3cf", building: "#9b9b9b", village: "#bdbdbd", hill: "#e0cda9",
  stream: "#56B4E9", river: "#0072B2", ford: "#F0E442", bridge: "#8c6d46", road: "#b08d57",
  works: "#7f6a5a", wall: "#6d6d6d", hedge: "#3f7f3f",
};

// Points every `step` yards along a polyline (placement of labels only).
function sampleLine(pts, step) {
  const out = [];
  for (let i = 1; i < pts.length; i++) {
    const [x0, y0] = pts[i - 1];
    const [x1, y1] = pts[i];
    const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / step));
    for (let j = 0; j <= n; j++) out.push([x0 + ((x1 - x0) * j) / n, y0 + ((y1 - y0) * j) / n]);
  }
  return out;
}

function inPolygon(poly, [x, y]) {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function nearLine(line, [x, y], d) {
  for (let i = 1; i < line.length; i++) {
    const [x0, y0] = line[i - 1];
    const [x1, y1] = line[i];
    const L = (x1 - x0) ** 2 + (y1 - y0) ** 2 || 1;
    const t = Math.max(0, Math.min(1, ((x - x0) * (x1 - x0) + (y - y0) * (y1 - y0)) / L));
    if (Math.hypot(x - (x0 + t * (x1 - x0)), y - (y0 + t * (y1 - y0))) <= d) return true;
  }
  return false;
}

function onFeature(f, p) {
  if (f.polygon) return inPolygon(f.polygon, p);
  if (f.line) return nearLine(f.line, p, Math.max((f.width || 6) / 2, 3));
  return false;
}

// outlines: {zone id: polygon} of objective zones drawn on the table (battlefield), names: {id: name}
export function createTableBoard(host, { board, outlines, names, sideIndex, onPoint, onUnit, onHover }) {
  clear(host);
  const W = board.table.width;
  const H = board.table.height;
  const svg = el("svg", { class: "table", role: "img", "aria-label": `Table ${W} by ${H} yards: ${board.title || ""}` }, host);
  defs(svg);
  const layers = {};
  for (const name of ["ground", "features", "grid", "path", "los", "units"]) layers[name] = el("g", { class: `layer-${name}` }, svg);
  // the grid, the path and sight lines are drawn over the table but never the target of a tap
  for (const name of ["grid", "path", "los"]) layers[name].setAttribute("pointer-events", "none");
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "#f4f0e0", stroke: "#555", "stroke-width": 2 }, layers.ground);
  for (let x = 0; x <= W; x += 100) {
    el("line", { x1: x, y1: 0, x2: x, y2: H, stroke: "#000", "stroke-opacity": 0.08 }, layers.grid);
    text(layers.grid, x + 2, 12, `${x}`, { class: "yard-label" });
  }
  for (let y = 0; y <= H; y += 100) {
    el("line", { x1: 0, y1: y, x2: W, y2: y, stroke: "#000", "stroke-opacity": 0.08 }, layers.grid);
    text(layers.grid, 2, y - 2, `${y}`, { class: "yard-label" });
  }
  const kinds = new Set();
  for (const f of board.features || []) {
    kinds.add(f.kind);
    const colour = FEATURE_COLOURS[f.kind] || "#ccc";
    let node;
    if (f.polygon) {
      node = el("polygon", { points: f.polygon.map((p) => p.join(",")).join(" "), fill: colour, "fill-opacity": 0.8, stroke: "#333", "stroke-width": 1, class: `feature f-${f.kind}`, "data-feature": f.id }, layers.features);
    } else if (f.line) {
      node = el("polyline", { points: f.line.map((p) => p.join(",")).join(" "), fill: "none", stroke: colour, "stroke-width": f.width || 6, "stroke-opacity": 0.9, class: `feature f-${f.kind}`, "data-feature": f.id }, layers.features);
    }
    if (node) el("title", {}, node).textContent = `${f.name || f.id} (${f.kind.replace("_", " ")})`;
    const at = f.polygon ? f.polygon[0] : f.line ? f.line[0] : null;
    if (at && f.name) text(layers.features, at[0] + 4, at[1] + 14, f.name, { class: "feature-label" });
  }
  for (const [zid, poly] of Object.entries(outlines || {})) {
    const node = el("polygon", { points: poly.map((p) => p.join(",")).join(" "), fill: "#CC79A7", "fill-opacity": 0.12, stroke: "#7a2c5d", "stroke-width": 3, "stroke-dasharray": "10 5", class: "zone-outline", "data-zone": zid }, layers.features);
    el("title", {}, node).textContent = `objective zone ${(names && names[zid]) || zid}`;
    text(layers.features, poly[0][0] + 4, poly[0][1] - 6, (names && names[zid]) || zid, { class: "zone-outline-label" });
  }
  // Counters keep their frontage in yards, but their height and label are sized for the
  // screen: at least LABEL_PX pixels high whatever the zoom (k = how much larger than 1:1).
  let k = 1;
  const sizeCounters = () => {
    for (const g of layers.units.querySelectorAll(".counter")) {
      const rect = g.querySelector("rect");
      rect.setAttribute("y", -8 * k);
      rect.setAttribute("height", 16 * k);
      const label = g.querySelector("text");
      label.setAttribute("y", 3.5 * k);
      label.style.fontSize = `${9 * k}px`;
    }
  };
  let scale = 1; // yards per screen pixel: the path's labels keep ~12 px on screen
  const onView = (perPixel) => {
    scale = perPixel;
    const next = Math.max(1, (perPixel * LABEL_PX) / 9);
    if (Math.abs(next - k) > 0.01) {
      k = next;
      sizeCounters();
    }
  };
  const pz = panZoom(svg, { x: -20, y: -20, w: W + 40, h: H + 40 }, host, onView);
  svg.addEventListener("click", (evt) => {
    const counter = evt.target.closest("[data-unit]");
    if (counter) return onUnit && onUnit(counter.getAttribute("data-unit"));
    const zone = evt.target.closest("[data-zone]");
    const p = pz.toUser(evt);
    onPoint && onPoint([Math.round(p.x), Math.round(p.y)], zone ? zone.getAttribute("data-zone") : null);
  });
  svg.addEventListener("mousemove", (evt) => {
    const p = pz.toUser(evt);
    onHover && onHover(`${Math.round(p.x)}, ${Math.round(p.y)} yd`);
  });
  return {
    svg,
    pz,
    kinds,
    hasOutlines: Object.keys(outlines || {}).length > 0,
    drawUnits(units, markers, _ft, selected, losses) {
      clear(layers.units);
      for (const u of units) {
        if (!Array.isArray(u.at) || u.destroyed) continue; // a unit inside a zone has no point
        const [x, y] = u.at;
        const w = Math.max(u.frontage || 0, 30);
        const g = el("g", { class: `counter${u.id === selected ? " selected" : ""}`, "data-unit": u.id, tabindex: 0, role: "button", "aria-label": `${u.id} ${u.side} ${u.type} ${u.order} at ${x},${y} yards`, transform: `translate(${x},${y})` }, layers.units);
        el("rect", { x: -w / 2, y: -8, width: w, height: 16, fill: PALETTE.sides[sideIndex(u.side)] || "#555", stroke: u.id === selected ? PALETTE.stop : "#111", "stroke-width": u.id === selected ? 4 : 1 }, g);
        text(g, 0, 4, u.id, { class: "table-unit", "text-anchor": "middle" });
        const lost = (losses || {})[u.id];
        if (lost) {
          const mark = text(g, w / 2 + 3, 4, `−${lost}`, { class: "table-loss", "data-loss": String(lost) });
          if (mark) el("title", {}, mark).textContent = `${u.id} has lost ${lost} casting${lost === 1 ? "" : "s"}`;
        }
        el("title", {}, g).textContent = `${u.id}: ${u.side} ${u.type}, ${u.order}, ${u.movement} yards`;
        g.addEventListener("keydown", (evt) => {
          if (evt.key === "Enter" || evt.key === " ") {
            evt.preventDefault();
            onUnit && onUnit(u.id);
          }
        });
      }
      sizeCounters();
      // the selected counter is drawn last: on top of any counter it overlaps
      const chosen = layers.units.querySelector(".counter.selected");
      if (chosen) layers.units.appendChild(chosen);
    },
    // extra.byFeature: [{id, label, yards}] as the ruling measured them; each is written where
    // the path runs through that feature (found by sampling the drawn line: placement only)
    drawPath(start, path, _stop, yards, extra) {
      clear(layers.path);
      if (!start || !path.length) return;
      const pts = [start, ...path];
      el("polyline", { points: pts.map((p) => p.join(",")).join(" "), fill: "none", stroke: PALETTE.path, "stroke-width": 3, "marker-end": "url(#arrow)", class: "move-path" }, layers.path);
      const end = pts[pts.length - 1];
      const fs = 12 * scale;
      const line = fs * 1.3;
      // labels right of their place on the path, stacked so that none covers another
      const labels = [];
      if (yards) labels.push({ at: end, textValue: yards, cls: "path-yards" });
      const samples = sampleLine(pts, 4);
      for (const f of (extra && extra.byFeature) || []) {
        const feature = (board.features || []).find((x) => x.id === f.id);
        const inside = feature ? samples.filter((p) => onFeature(feature, p)) : [];
        const at = inside.length ? inside[Math.floor(inside.length / 2)] : end;
        if (inside.length) {
          el("polyline", { points: [inside[0], inside[inside.length - 1]].map((p) => p.join(",")).join(" "), fill: "none", stroke: PALETTE.stop, "stroke-width": 7, "stroke-opacity": 0.7, class: "path-in-feature", "data-feature": f.id }, layers.path);
        }
        labels.push({ at, textValue: `${f.label}: ${f.yards} yd`, cls: "feature-yards-label", feature: f.id });
      }
      labels.sort((a, b) => a.at[1] - b.at[1]);
      let lastY = -Infinity;
      for (const l of labels) {
        const x = Math.max(...labels.map((o) => o.at[0])) + 14 * scale;
        const y = Math.max(l.at[1] + fs / 3, lastY + line);
        lastY = y;
        const g = el("g", { class: l.feature ? "feature-yards" : "path-yards-label", "data-feature": l.feature || null }, layers.path);
        el("line", { x1: l.at[0], y1: l.at[1], x2: x - 2 * scale, y2: y - fs / 3, stroke: "#000", "stroke-width": scale, "stroke-opacity": 0.6 }, g);
        el("circle", { cx: l.at[0], cy: l.at[1], r: 3 * scale, fill: "#000" }, g);
        const t = text(g, x, y, l.textValue, { class: l.cls });
        t.style.fontSize = `${fs}px`;
      }
    },
    drawLos(points, result) {
      clear(layers.los);
      for (const p of points) el("circle", { cx: p[0], cy: p[1], r: 6, fill: "#000" }, layers.los);
      if (points.length === 2) {
        const clearLine = result && result.clear;
        el("line", { x1: points[0][0], y1: points[0][1], x2: points[1][0], y2: points[1][1], stroke: clearLine ? PALETTE.reach : PALETTE.blocked, "stroke-width": 3, "stroke-dasharray": clearLine ? null : "8 5", class: `los ${clearLine ? "clear" : "blocked"}` }, layers.los);
      }
    },
    // displays: {zone id: zone query result}; a zone whose every sector one side holds is
    // filled with that side's colour (a captured village turns blue)
    colourZones(displays, sideOf) {
      for (const node of svg.querySelectorAll(".zone-outline")) {
        const d = (displays || {})[node.getAttribute("data-zone")] || {};
        const holders = new Set(Object.values(d.sectors || {}).map((s) => s.holder));
        const held = holders.size === 1 && [...holders][0] && [...holders][0] !== "engaged" ? [...holders][0] : null;
        node.setAttribute("fill", held ? PALETTE.sides[sideOf(held)] || "#CC79A7" : "#CC79A7");
        node.setAttribute("fill-opacity", held ? 0.3 : 0.12);
        if (held) node.setAttribute("data-held-by", held);
        else node.removeAttribute("data-held-by");
        const title = node.querySelector("title");
        if (title) title.textContent = `objective zone ${(names && names[node.getAttribute("data-zone")]) || node.getAttribute("data-zone")}${held ? `, held by ${held}` : ""}${d.contested ? `, contested` : ""}`;
      }
    },
    drawZones() {},
    drawReach() {},
    drawSupply() {},
  };
}
