// Small SVG helpers and pan/zoom by viewBox (mouse or finger drag, pinch, wheel, keyboard, buttons).

export const SVG_NS = "http://www.w3.org/2000/svg";

export function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(node);
  return node;
}

export function text(parent, x, y, content, attrs) {
  const t = el("text", { x, y, ...(attrs || {}) }, parent);
  t.textContent = content;
  return t;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

// Colour-blind-safe palette (Okabe & Ito) for sides and overlays.
export const PALETTE = {
  sides: ["#0072B2", "#D55E00", "#009E73", "#CC79A7"],
  zone: "#E69F00",
  negated: "#56B4E9",
  reach: "#009E73",
  stop: "#F0E442",
  path: "#000000",
  blocked: "#CC79A7",
};

// Hatch and dot patterns, so overlays never rely on colour alone.
export function defs(svg) {
  const d = el("defs", {}, svg);
  const hatch = el("pattern", { id: "pat-zone", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, d);
  el("rect", { width: 8, height: 8, fill: PALETTE.zone, "fill-opacity": 0.25 }, hatch);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: PALETTE.zone, "stroke-width": 3 }, hatch);
  const dots = el("pattern", { id: "pat-negated", width: 8, height: 8, patternUnits: "userSpaceOnUse" }, d);
  el("rect", { width: 8, height: 8, fill: PALETTE.negated, "fill-opacity": 0.2 }, dots);
  el("circle", { cx: 4, cy: 4, r: 1.6, fill: "#0b4f77" }, dots);
  const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, d);
  el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: PALETTE.path }, marker);
  return d;
}

export function panZoom(svg, box, host, onView) {
  const home = { ...box };
  let vb = { ...box };
  // onView(units per screen pixel), after every pan, zoom or resize: boards keep labels readable
  const perPixel = () => {
    const r = svg.getBoundingClientRect();
    return r.width && r.height ? Math.max(vb.w / r.width, vb.h / r.height) : null;
  };
  const apply = () => {
    svg.setAttribute("viewBox", `${vb.x} ${vb.y} ${vb.w} ${vb.h}`);
    const s = perPixel();
    if (onView && s) onView(s);
  };
  if (onView && window.ResizeObserver) new ResizeObserver(() => { const s = perPixel(); if (s) onView(s); }).observe(svg);
  const zoom = (factor, cx, cy) => {
    const px = cx === undefined ? vb.x + vb.w / 2 : cx;
    const py = cy === undefined ? vb.y + vb.h / 2 : cy;
    const w = Math.min(Math.max(vb.w * factor, home.w / 40), home.w * 4);
    const k = w / vb.w;
    vb = { x: px - (px - vb.x) * k, y: py - (py - vb.y) * k, w, h: vb.h * k };
    apply();
  };
  const pan = (dx, dy) => {
    vb.x += dx;
    vb.y += dy;
    apply();
  };
  const toUser = (evt) => {
    const r = svg.getBoundingClientRect();
    const s = Math.max(vb.w / r.width, vb.h / r.height);
    const ox = (r.width * s - vb.w) / 2;
    const oy = (r.height * s - vb.h) / 2;
    return { x: vb.x - ox + (evt.clientX - r.left) * s, y: vb.y - oy + (evt.clientY - r.top) * s, s };
  };
  svg.addEventListener("wheel", (evt) => {
    evt.preventDefault();
    const p = toUser(evt);
    zoom(evt.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
  }, { passive: false });
  // One pointer drags to pan (mouse, pen or a finger); two fingers pinch to zoom. A drag or a
  // pinch that moved is not a click, so a tap still selects a unit or extends the path.
  let drag = null;
  const pointers = new Map();
  let pinch = null;
  const spread = () => {
    const [a, b] = [...pointers.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y) || 1, x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  };
  svg.addEventListener("pointerdown", (evt) => {
    if (evt.button !== 0) return;
    pointers.set(evt.pointerId, { x: evt.clientX, y: evt.clientY });
    if (pointers.size === 2) {
      pinch = spread();
      if (drag) drag.moved = true;
      else drag = { x: evt.clientX, y: evt.clientY, moved: true, s: toUser(evt).s };
      return;
    }
    drag = { x: evt.clientX, y: evt.clientY, moved: false, s: toUser(evt).s };
  });
  svg.addEventListener("pointermove", (evt) => {
    if (pointers.has(evt.pointerId)) pointers.set(evt.pointerId, { x: evt.clientX, y: evt.clientY });
    if (pinch && pointers.size === 2) {
      const now = spread();
      const at = toUser({ clientX: now.x, clientY: now.y });
      zoom(pinch.d / now.d, at.x, at.y);
      pinch = now;
      return;
    }
    if (!drag) return;
    const dx = evt.clientX - drag.x;
    const dy = evt.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 8) return;
    drag.moved = true;
    pan(-dx * drag.s, -dy * drag.s);
    drag.x = evt.clientX;
    drag.y = evt.clientY;
  });
  const lift = (evt) => {
    pointers.delete(evt.pointerId);
    if (pointers.size < 2) pinch = null;
  };
  svg.addEventListener("pointerup", lift);
  svg.addEventListener("pointercancel", (evt) => {
    lift(evt);
    drag = null;
  });
  // A drag that moved is not a click.
  svg.addEventListener("click", (evt) => {
    if (drag && drag.moved) evt.stopPropagation();
    drag = null;
  }, true);
  window.addEventListener("pointerup", (evt) => {
    pointers.delete(evt.pointerId);
    setTimeout(() => { if (!pointers.size) drag = null; }, 0);
  });
  if (host) {
    host.onkeydown = (evt) => {
      if (evt.target !== host) return;
      const step = vb.w / 10;
      const keys = {
        ArrowLeft: () => pan(-step, 0), ArrowRight: () => pan(step, 0),
        ArrowUp: () => pan(0, -step), ArrowDown: () => pan(0, step),
        "+": () => zoom(1 / 1.25), "=": () => zoom(1 / 1.25), "-": () => zoom(1.25),
        "0": () => { vb = { ...home }; apply(); },
      };
      if (keys[evt.key]) {
        evt.preventDefault();
        keys[evt.key]();
      }
    };
  }
  apply();
  return {
    zoomIn: () => zoom(1 / 1.25),
    zoomOut: () => zoom(1.25),
    reset: () => { vb = { ...home }; apply(); },
    toUser,
    perPixel,
  };
}
