// Referee console: lobby, board, acting, match panel. Every judgement comes from the API.
import { Api, ApiError } from "./api.js";
import { createHexBoard, unitLabel, TERRAIN_COLOURS, HEXSIDE_COLOURS } from "./hexboard.js";
import { createTableBoard, FEATURE_COLOURS } from "./tableboard.js";
import { createZoneBoard } from "./zoneboard.js";
import { schemaForm } from "./forms.js";
import { PALETTE } from "./svg.js";
import { renderSealed, renderDice, renderUmpire } from "./match.js";
import { loadConfig, invitationLink, spectatorLink, spectatorTokenLink, linkField, linkWarning } from "./invite.js";
import { whatIfTools } from "./whatif.js";

import { setupReplay } from "./replay.js";
import { setupRules } from "./rules.js";
import { emailInviteField, mountNotifyToggle, onGameEvent } from "./notifications.js";
import { appealButton, renderAppeals } from "./appeals.js";

import { setupChat } from "./chat.js";
import { createOrders } from "./hexorders.js";
import { narrative, boardMarks, yardsByFeature, measured } from "./hexnarrate.js";
import { setupOrders } from "./orders.js";
import { narrate, lossesOf, bearsOnLosses } from "./narrate.js";

const $ = (id) => document.getElementById(id);
const perf = (window.refereePerf = { firstRender: null, rulings: [] });

export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

export function notify(message, kind) {
  const n = $("notice");
  n.textContent = message;
  n.className = `notice ${kind || "info"}`;
  n.hidden = !message;
}

function problemText(err) {
  if (!(err instanceof ApiError)) return String(err && err.message ? err.message : err);
  const p = err.problem;
  // each field error with where it is (`location`, a JSON pointer such as /scenario/sides)
  const fields = (p.errors || []).map((e) => {
    const where = e.location || e.pointer || (Array.isArray(e.loc) ? `/${e.loc.join("/")}` : "");
    return where ? `${where}: ${e.message || ""}` : e.message || "";
  }).join("; ");
  return `${err.status} ${err.code}: ${p.detail || p.title || ""}${fields ? ` (${fields})` : ""}`;
}

// ---------------------------------------------------------------- state
const S = {
  api: new Api(null),
  gameId: null,
  seat: null,
  view: null,
  etag: null,
  meta: null, // GET /rulesets/{id}
  catalog: {},
  board: null,
  kind: null, // hex | table | zones
  boardApi: null,
  events: new Map(),
  selected: null,
  path: [],
  ruling: null,
  reach: null,
  zones: null,
  los: [],
  stream: null,
  physicalDice: "",
  displays: {},
  replay: null, // {version, state, position} while the replay shows a past position (replay.js)
};
export const state = S;

function tokenKey(id) {
  return `referee:token:${id}`;
}

// ---------------------------------------------------------------- citations and tooltips
export function citeButton(c, ruleset) {
  const section = typeof c === "string" ? c : c.section;
  const rs = (typeof c === "object" && c.ruleset) || ruleset || (S.meta && S.meta.id);
  const entry = rs === (S.meta && S.meta.id) ? S.catalog[section] : null;
  const title = (entry && entry.title) || (typeof c === "object" && c.title) || "";
  const summary = (entry && entry.summary) || "";
  const b = h("button", { type: "button", class: "cite", "data-section": section, "data-ruleset": rs || null, "data-title": title || null, "aria-label": `Rule ${section}: ${title}. ${summary}` }, `§${section}`);
  const show = () => {
    const tip = $("tooltip");
    tip.innerHTML = "";
    tip.append(h("strong", {}, `${section} ${title}`), h("div", {}, summary));
    const r = b.getBoundingClientRect();
    tip.style.left = `${Math.min(r.left + window.scrollX, window.innerWidth - 340)}px`;
    tip.style.top = `${r.bottom + window.scrollY + 4}px`;
    tip.hidden = false;
  };
  const hide = () => { $("tooltip").hidden = true; };
  b.addEventListener("mouseenter", show);
  b.addEventListener("focus", show);
  b.addEventListener("mouseleave", hide);
  b.addEventListener("blur", hide);
  return b;
}

function cites(list) {
  return h("span", { class: "cites" }, ...(list || []).map((c) => citeButton(c)));
}

export function renderRuling(r, target, action) {
  const box = target || $("ruling");
  box.innerHTML = "";
  if (!r) return;
  const verdict = r.legal ? "Legal" : "Illegal";
  box.append(
    h("p", { class: `verdict ${r.legal ? "legal" : "illegal"}`, "data-legal": String(r.legal) }, h("strong", {}, r.legal ? "✔ " : "✘ ", verdict), " — ", r.summary || ""),
  );
  // the ruling told in words, with its sections inline (zoi, zoc, terrain: hexnarrate.js)
  if (action && S.orders && S.orders.enabled) box.append(narrative(r, action, { h, citeButton, board: S.board, units: units(), facingName: S.orders.facingName }) || "");
  const story = narrate(r); // the zone rules' rulings told in words, dice labelled (narrate.js)
  if (story) box.append(story);
  if ((r.violations || []).length) {
    box.append(h("h4", {}, "Why not"), h("ul", { class: "violations" }, ...r.violations.map((v) => h("li", { "data-code": v.code }, h("code", {}, v.code), " ", v.message || "", v.hex ? ` (${v.hex})` : "", " ", cites(v.citations)))));
  }
  if ((r.effects || []).length) {
    box.append(h("h4", {}, "Consequences"), h("ul", { class: "effects" }, ...r.effects.map((e) => h("li", { "data-kind": e.kind }, h("code", {}, e.kind), " ", e.message || "", " ", cites(e.citations)))));
  }
  const d = measured(r); // terrain, or battlefield's terrain part
  if (d) {
    box.append(h("h4", {}, "Yards measured"), h("ul", { class: "yards" }, h("li", {}, `path ${d.path_yards} yd, cost ${d.cost} of ${d.allowance}`), ...yardsByFeature(r, S.board).map((f) => h("li", { "data-feature": f.id }, `${f.label}: ${f.yards} yd`))));
  }
  box.append(h("h4", {}, "Rules cited"), h("ul", { class: "citations" }, ...(r.citations || []).map((c) => {
    const entry = S.catalog[c.section] || {};
    return h("li", {}, citeButton(c), " ", h("span", { class: "cite-title" }, entry.title || c.title || ""));
  })));
  if ((r.interpretations || []).length) {
    box.append(h("h4", {}, "Interpretations relied on"), h("ul", { class: "interpretations" }, ...r.interpretations.map((i) => {
      const known = ((S.meta && S.meta.interpretations) || []).find((x) => x.id === i.id) || {};
      const other = known.alternative ? `Other reading: ${known.alternative}` : "Other reading: see the ruleset's interpretations";
      const flip = i.option
        ? h("div", { class: "flip" }, `${other} — set game option `, h("code", {}, i.option), ` (now ${JSON.stringify(i.value)})`)
        : h("div", { class: "flip", "data-no-option": "" }, `${other} — no per-game option selects it: this reading is how the service plays these rules.`);
      return h("li", { "data-interpretation": i.id }, h("code", {}, i.id), " ", i.text || known.reading || "", flip, whatIfTools(i, { S, h, problemText }));
    })));
  }
}

// ---------------------------------------------------------------- lobby
async function loadLobby() {
  $("lobby").hidden = false;
  $("game").hidden = true;
  const rulesets = (await S.api.get("/rulesets")).body;
  const select = $("scenario-select");
  select.innerHTML = "";
  let shipped = [];
  try {
    shipped = (await S.api.get("/console/scenarios")).body;
  } catch {
    shipped = [];
  }
  const known = new Set(rulesets.map((r) => r.id));
  for (const r of rulesets) {
    const group = h("optgroup", { label: `${r.id} — ${r.title}` });
    const mine = shipped.filter((s) => s.ruleset === r.id);
    for (const s of mine) group.appendChild(new Option(`${s.title} (${s.name})`, `shipped:${r.id}:${s.name}`));
    if (!mine.length) group.appendChild(new Option(`${r.title}: example`, `example:${r.id}`));
    select.appendChild(group);
    $("paste-ruleset").appendChild(new Option(r.id, r.id));
  }
  S.shipped = shipped.filter((s) => known.has(s.ruleset));
  $("create-btn").onclick = createGame;
  $("open-btn").onclick = () => {
    const id = $("open-id").value.trim();
    if (!id) return notify("Enter a game id.", "error");
    const tok = $("open-token").value.trim();
    if (tok) sessionStorage.setItem(tokenKey(id), tok);
    location.hash = `game=${encodeURIComponent(id)}`;
  };
  $("open-spectator-btn").onclick = () => {
    const id = $("open-id").value.trim();
    if (!id) return notify("Enter a game id.", "error");
    location.hash = `game=${encodeURIComponent(id)}&as=spectator`;
  };
}

async function createGame() {
  let ruleset;
  let scenario;
  const pasted = $("paste-json").value.trim();
  try {
    if (pasted) {
      ruleset = $("paste-ruleset").value;
      scenario = JSON.parse(pasted);
    } else {
      const [src, rs, name] = $("scenario-select").value.split(":");
      ruleset = rs;
      if (src === "shipped") scenario = S.shipped.find((s) => s.ruleset === rs && s.name === name).scenario;
      else scenario = (await S.api.get(`/rulesets/${rs}`)).body.example_scenario;
    }
  } catch (err) {
    return notify(`The pasted scenario is not JSON: ${err.message}`, "error");
  }
  const body = { ruleset, scenario, public: $("create-public").checked };
  const match = {};
  if ($("create-physical").checked) match.physical_dice = true;
  const minutes = Number($("create-clock").value);
  if ($("create-clock").value && minutes > 0) {
    match.clock = { budget_seconds: minutes * 60, increment_seconds: Number($("create-increment").value || 0) };
  }
  if (Object.keys(match).length) body.match = match;
  try {
    const game = (await S.api.request("POST", "/games", { body })).body;
    showCreated(game);
  } catch (err) {
    notify(problemText(err), "error");
  }
}

function showCreated(game) {
  const box = $("created");
  box.hidden = false;
  box.innerHTML = "";
  const rows = Object.entries(game.seats).map(([seat, tok]) => {
    const link = invitationLink(game.id, seat, tok);
    return h("tr", { "data-seat": seat },
      h("th", { scope: "row" }, seat),
      h("td", {}, h("code", { class: "token" }, tok)),
      h("td", {}, linkField(h, link, { label: `the ${seat} invitation link`, cls: "invite-url" }),
        " ", h("a", { href: link, class: "invite", target: "_blank", rel: "noopener", "aria-label": `Open the invitation link for ${seat}` }, "open"),
        " ", emailInviteField(h, { gameId: game.id, seat, seatToken: tok, umpireToken: game.seats.umpire })));
  });
  const watch = spectatorLink(game.id);
  box.append(...[
    h("p", {}, h("strong", {}, "Game created: "), h("code", { id: "created-id" }, game.id), ". Each token is shown only this once: send each player the link of their seat (the token is in the part after #, which never reaches a server). If a link is lost, the umpire can reissue it from the game's Umpire tab."),
    linkWarning(h),
    h("table", { class: "seats" }, h("thead", {}, h("tr", {}, h("th", {}, "Seat"), h("th", {}, "Token"), h("th", {}, "Invitation link"))), h("tbody", {}, ...rows)),
    game.public ? h("p", {}, "Spectators: ", linkField(h, watch, { label: "the spectators' watch link", cls: "spectate-url" }), " ", h("a", { href: watch, class: "spectate" }, "watch")) : null,
  ].filter(Boolean));
}

// ---------------------------------------------------------------- game
const sideId = (s) => (typeof s === "string" ? s : s.name || s.id);

function sideIndex(side) {
  return sideIds().indexOf(side);
}

function sideIds() {
  return ((S.view && S.view.sides) || []).map(sideId);
}

async function openGame(id, token, configured) {
  if (S.stream) S.stream.stop();
  S.api = new Api(token);
  S.gameId = id;
  S.events = new Map();
  S.panelsVersion = null;
  S.selected = null;
  S.path = [];
  $("lobby").hidden = true;
  $("game").hidden = false;
  $("log").innerHTML = "";
  try {
    await refreshView();
    const [meta, scen] = await Promise.all([S.api.get(`/rulesets/${S.view.ruleset}`), S.api.get(`/games/${id}/scenario`)]);
    S.meta = meta.body;
    S.catalog = Object.fromEntries(S.meta.catalog.map((c) => [c.id, c]));
    S.board = scen.body.board;
  } catch (err) {
    notify(problemText(err), "error");
    return;
  }
  S.seat = S.view.seat || null;
  $("whoami").textContent = S.seat ? `Seat: ${S.seat}` : "Spectator (read-only)";
  document.body.dataset.seat = S.seat || "spectator";
  mountNotifyToggle(h, $("notify"), { api: S.api, gameId: id, seat: S.seat });
  // the overlays' queries go out before the board is drawn: the server answers meanwhile
  S.kind = boardKind();
  setupTools();
  const overlays = refreshOverlays();
  buildBoard();
  setupActions();
  // orders by pointing: zoi, zoc and terrain play theirs in hexorders.js (S.orders), the zone
  // rulesets (objective-zones, battlefield) in orders.js (S.zoneOrders); never both at once
  S.zoneOrders = S.orders && S.orders.enabled ? null : setupOrders({ S, h, submit, renderRuling, notify, problemText, citeButton, units, refresh: refreshAfterChange });
  const extras = { S, h, renderRuling, citeButton, notify, problemText, render: renderAll };
  S.replayApi = setupReplay(extras);
  S.rulesApi = setupRules(extras);
  setupChat({ S, h, notify, problemText, sideIds });
  await overlays;
  await configured;
  renderAll();
  perf.firstRender = performance.now();
  performance.mark("referee:first-render");
  document.body.dataset.ready = "true";
  S.stream = S.api.stream(id, null, onEvent, (s) => { $("stream-status").textContent = s; document.body.dataset.stream = s; });
}

async function refreshView() {
  const r = await S.api.get(`/games/${S.gameId}`);
  S.view = r.body;
  S.etag = r.headers.get("ETag");
}

function boardKind() {
  return S.board.table ? "table" : S.board.zones ? "zones" : "hex";
}

function buildBoard() {
  const host = $("board");
  const common = { board: S.board, sideIndex, onUnit: selectUnit, onHover: hoverHex, onZone: (z) => S.zoneOrders && S.zoneOrders.pickZone(z) };
  if (S.board.table) {
    S.kind = "table";
    // battlefield nests a terrain board and an objective-zones board, with zone outlines
    const nested = Boolean(S.board.table.table);
    const zoneBoard = nested && S.board.zones ? S.board.zones.zones || {} : {};
    const names = Object.fromEntries(Object.entries(zoneBoard).map(([id, z]) => [id, z.name || id]));
    S.boardApi = createTableBoard(host, { ...common, board: nested ? S.board.table : S.board, outlines: S.board.outlines, names, onPoint: clickPoint });
  } else if (S.board.zones) {
    S.kind = "zones";
    S.boardApi = createZoneBoard(host, common);
  } else {
    S.kind = "hex";
    S.boardApi = createHexBoard(host, { ...common, onHex: clickHex });
  }
  document.body.dataset.board = S.kind;
  $("zoom-in").onclick = () => S.boardApi.pz.zoomIn();
  $("zoom-out").onclick = () => S.boardApi.pz.zoomOut();
  $("zoom-reset").onclick = () => S.boardApi.pz.reset();
  for (const b of ["zoom-in", "zoom-out", "zoom-reset"]) $(b).hidden = S.kind === "zones"; // cards: nothing to zoom
  renderLegend();
}

// What the API said about the hex under the pointer: terrain, zone, cost, or why not.
function hoverHex(hex) {
  $("hover-info").textContent = hex || "";
  const box = $("hex-info");
  if (!hex || S.kind !== "hex") return;
  box.innerHTML = "";
  const t = S.board.hexes[hex];
  const bits = [h("strong", {}, hex), ` ${typeof t === "string" ? t : (t && t.terrain) || ""}`];
  const z = S.zones && S.zones.hexes.find((x) => x.hex === hex);
  if (z) bits.push(h("div", {}, z.title));
  const r = S.reach && S.reach.reach[hex];
  if (r) bits.push(h("div", {}, `reachable for ${r.cost} MP${r.must_stop ? ", must stop there" : ""}`, r.stop ? [" ", cites(r.stop.citations)] : null));
  const why = S.reach && S.reach.unreachable[hex];
  if (why) bits.push(h("ul", { class: "why-not" }, ...why.map((w) => h("li", { "data-code": w.code }, w.message, " ", cites(w.citations)))));
  box.append(...bits);
}

function queryNames() {
  return new Set(((S.meta && S.meta.queries) || []).map((q) => q.name));
}

function setupTools() {
  const q = queryNames();
  const sel = $("zones-side");
  sel.innerHTML = "";
  const zoneQuery = q.has("ezoc-map") ? "ezoc-map" : q.has("zone-map") ? "zone-map" : null;
  $("zones-label").hidden = !zoneQuery;
  $("show-supply").parentElement.hidden = !q.has("supply");
  $("los-label").hidden = !q.has("line-of-sight");
  if (zoneQuery) {
    const sides = sideIds();
    const me = sides.includes(S.seat) ? S.seat : (S.view.position && S.view.position.phasing_side) || sides[0];
    const other = sides.find((s) => s !== me) || me;
    sel.appendChild(new Option("none", ""));
    for (const s of sides) sel.appendChild(new Option(zoneQuery === "ezoc-map" ? `enemy zones against ${s}` : `zones of ${s}`, s));
    sel.value = zoneQuery === "ezoc-map" ? me : other;
  }
  sel.onchange = async () => { await refreshOverlays(); renderAll(); };
  $("show-supply").onchange = async () => { await refreshOverlays(); renderAll(); };
  $("los-mode").onchange = () => { S.los = []; S.boardApi.drawLos && S.boardApi.drawLos([], null); };
}

async function refreshOverlays() {
  const q = queryNames();
  const jobs = [];
  const side = $("zones-side").value;
  S.zones = null;
  S.fronts = [];
  if (S.kind === "hex" && side && q.has("ezoc-map")) {
    jobs.push(S.api.query(S.gameId, "ezoc-map", { side }).then((r) => {
      const res = r.body.result;
      S.zones = {
        hexes: Object.entries(res.hexes).map(([hex, z]) => ({ hex, negated: z.negated, title: `${hex}: EZOC of ${z.by.join(", ")}${z.negated ? `, negated by ${z.negated_by.map((n) => n.id || n.kind).join(", ")}` : ""} (§${z.citations.join(", §")})` })),
        blocked: res.blocked.map((b) => ({ from: b.from, to: b.to, title: `${b.unit}: no zone from ${b.from} into ${b.to}: ${b.reason} (§${b.section})` })),
      };
    }));
  }
  if (S.kind === "hex" && q.has("zone-map")) {
    const sides = sideIds();
    for (const s of sides) {
      jobs.push(S.api.query(S.gameId, "zone-map", { side: s }).then((r) => {
        const res = r.body.result;
        for (const z of res.hexes) for (const src of z.sources) if (src.hexside) S.fronts.push(src.hexside);
        if (s === side) {
          const carre = res.carres.flatMap((c) => c.adjacent.map((hex) => ({ hex, negated: false, title: `${hex}: next to the carré ${c.unit}` })));
          S.zones = {
            hexes: [...res.hexes.map((z) => ({ hex: z.hex, negated: false, title: `${z.hex}: zone of ${z.sources.map((x) => `${x.unit} across ${x.hexside}`).join(", ")}` })), ...carre],
            blocked: [],
          };
        }
      }));
    }
  }
  S.supply = null;
  if (S.kind === "hex" && q.has("supply") && $("show-supply").checked) {
    const sides = sideIds();
    jobs.push(Promise.all(sides.map((s) => S.api.query(S.gameId, "supply", { side: s }))).then((rs) => {
      S.supply = rs.flatMap((r) => Object.values(r.body.result.units || {}).filter((u) => (u.path || []).length).map((u) => ({ side: u.side, path: u.path })));
    }));
  }
  S.reach = null;
  if (S.kind === "hex" && S.selected && q.has("reachable")) {
    jobs.push(S.api.query(S.gameId, "reachable", { unit: S.selected }).then((r) => {
      const res = r.body.result;
      if (res.reachable) S.reach = { reach: res.reachable, unreachable: res.unreachable || {} };
      else {
        const reach = {};
        for (const hx of res.hexes || []) {
          const costs = hx.paths.map((p) => p.mp_spent);
          reach[hx.hex] = { cost: Math.min(...costs), must_stop: hx.paths.some((p) => p.must_stop) };
        }
        S.reach = { reach, unreachable: {} };
      }
    }).catch(() => { S.reach = null; }));
  }
  // the last answer stays until the new one is in (a redraw meanwhile keeps what is offered)
  if (!S.seat) S.available = null;
  if (S.seat) {
    const asked = (S.availableAsked = (S.availableAsked || 0) + 1); // an older answer arriving late is dropped
    jobs.push(S.api.get(`/games/${S.gameId}/actions/available`).then((r) => { if (asked === S.availableAsked) S.available = r.body; }).catch(() => { if (asked === S.availableAsked) S.available = null; }));
  }
  if (S.kind === "zones" || (S.kind === "table" && S.board.zones)) {
    const zones = Object.keys(S.kind === "zones" ? S.board.zones || {} : S.board.zones.zones || {});
    jobs.push(Promise.all(zones.map((z) => S.api.query(S.gameId, "zone", { zone: z }))).then((rs) => {
      S.displays = Object.fromEntries(rs.map((r, i) => [zones[i], r.body.result]));
    }));
  }
  try {
    await Promise.all(jobs);
  } catch (err) {
    notify(problemText(err), "error");
  }
}

// The state on the board: the live one, or the past position the replay shows.
function shownState() {
  return (S.replay ? S.replay.state : S.view && S.view.state) || {};
}

function units() {
  const st = shownState();
  if (st.units) return st.units;
  // battlefield: units on the table and units in the zones
  const all = new Map();
  for (const u of [...((st.zones && st.zones.units) || []), ...((st.table && st.table.units) || [])]) all.set(u.id, u);
  return [...all.values()];
}

function unitById(id) {
  return units().find((u) => u.id === id);
}

// The unit the keyboard focus is on (a counter on the board or a button of the unit list), so a
// redraw can put the focus back on the same unit instead of dropping it to the page body.
function focusedUnit() {
  const a = document.activeElement;
  if (!a || !a.dataset || !a.dataset.unit) return null;
  return { unit: a.dataset.unit, where: a.closest("#board") ? "#board" : a.closest("#unit-list") ? "#unit-list" : null };
}

function focusUnit(unit, where) {
  const places = where ? [where, "#board", "#unit-list"] : ["#board", "#unit-list"];
  for (const place of places) {
    const node = document.querySelector(`${place} [data-unit="${CSS.escape(unit)}"]`);
    if (node && node.getClientRects().length) {
      node.focus({ preventScroll: where === null });
      return true;
    }
  }
  return false;
}

function renderAll() {
  const focused = focusedUnit();
  renderPosition();
  // the panels read the sealed orders and dice again only when the game has moved on
  if (S.panelsVersion !== S.view.version) {
    S.panelsVersion = S.view.version;
    renderPanels();
  }
  const api = S.boardApi;
  if (S.replay) {
    S.replayApi.draw(api, units());
    return renderUnitList();
  }
  if (S.kind === "zones") {
    const reveals = {};
    for (const ev of [...S.events.values()].sort((a, b) => a.seq - b.seq)) {
      if (ev.kind === "sealed_revealed" && ev.payload && ev.payload.decision) {
        const zone = String(ev.payload.decision).split(":")[1];
        if (zone) reveals[zone] = ev;
      }
    }
    api.render(units(), S.displays, reveals, S.selected, lossesOf(S.events.values()).losses);
  } else {
    // castings lost in assaults and bombardments so far, shown on the counters (narrate.js)
    api.drawUnits(units(), S.view.state.markers || [], S.board.front_table, S.selected, lossesOf(S.events.values()).losses);
    api.drawZones(S.zones ? S.zones.hexes : [], S.zones ? S.zones.blocked : [], S.fronts);
    // where the unit may move: shown for a move only (a retreat or a supply line goes elsewhere)
    drawReach(true);
    api.drawSupply(S.supply);
    if (api.colourZones) api.colourZones(S.displays, sideIndex);
    drawPath();
  }
  renderUnitList();
  if (S.orders) S.orders.render();
  if (S.zoneOrders) S.zoneOrders.render();
  const lost = !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
  if (focused && focused.where && lost) focusUnit(focused.unit, focused.where);
}

// Where the unit may move: shown for a move only (a retreat or a supply line goes elsewhere);
// drawn again when the order's kind changes (force: after a refresh of the reach itself).
function drawReach(force) {
  const api = S.boardApi;
  if (!api || !api.drawReach || S.kind !== "hex" || S.replay) return;
  const moving = !S.orders || !S.orders.enabled || S.orders.kind() === "move";
  const key = moving && S.reach;
  if (!force && S.reachDrawn === key) return;
  S.reachDrawn = key;
  api.drawReach(moving && S.reach && S.reach.reach, moving && S.reach && S.reach.unreachable);
}

function drawPath() {
  drawReach(false);
  const u = unitById(S.selected);
  if (!u || S.kind === "zones") return S.boardApi.drawPath && S.boardApi.drawPath(null, [], null);
  const start = S.kind === "table" ? u.at : u.hex;
  const stop = stopHex(S.ruling);
  const m = measured(S.ruling);
  const yards = m && m.path_yards !== undefined ? `${m.path_yards} yd` : null;
  // after a submit the board keeps what the ruling measured or took (until the next click)
  const shown = S.ruling ? { r: S.ruling, a: S.rulingAction, path: S.path } : S.submitted && S.submitted.action.unit === S.selected ? { r: S.submitted.ruling, a: S.submitted.action, path: [] } : null;
  const extra = shown ? { byFeature: yardsByFeature(shown.r, S.board), marks: boardMarks(shown.r, shown.a) } : null;
  S.boardApi.drawPath(start, S.path, stop, yards, extra);
}

function stopHex(r) {
  if (!r) return null;
  const eff = (r.effects || []).find((e) => /must_stop$/.test(e.kind) && e.hex);
  if (eff) return eff.hex;
  return (r.details && (r.details.stop_hex || r.details.stopped_at)) || null;
}

function renderPosition() {
  const p = S.view.position;
  const status = S.view.status === "finished" ? ` · finished${S.view.winner ? `, winner ${S.view.winner}` : ""}` : "";
  $("position").textContent = p
    ? `${S.meta ? S.meta.id : S.view.ruleset} · Turn ${p.turn} · ${p.phase_title || p.phase} · ${whoActs(p)}${status} · v${S.view.version}`
    : `${S.view.ruleset} · no sequence of play${status} · v${S.view.version}`;
  renderClock();
  renderRules();
}

// Who may act in this phase, in words ("phasing: axis; both sides act").
function whoActs(p) {
  const acts = {
    phasing: `only ${p.phasing_side} acts`,
    non_phasing: `only the side not phasing acts`,
    both: "both sides act",
    umpire: "only the umpire acts",
  }[p.acts];
  return `phasing: ${p.phasing_side}${acts ? `; ${acts}` : ""}`;
}

// The ruleset version the game is played under and, when the server runs another, a notice:
// nothing can be played until the umpire upgrades the game (the Umpire tab).
function renderRules() {
  const v = S.view;
  $("rules").textContent = `rules: ${v.ruleset} ${v.ruleset_version}`;
  const notice = $("upgrade-notice");
  notice.hidden = !v.upgrade_available;
  notice.textContent = v.upgrade_available
    ? `This game is played under ${v.ruleset} ${v.ruleset_version}; this server runs ${v.ruleset_running_version}. Nothing can be played until the umpire upgrades the game${S.seat === "umpire" ? " (Umpire tab)" : ""}.`
    : "";
}

function renderClock() {
  const c = S.view && S.view.clock;
  const box = $("clock");
  if (!c || !c.remaining) { box.textContent = "untimed"; return; }
  const now = Date.now() / 1000;
  box.textContent = Object.entries(c.remaining).map(([side, secs]) => {
    const left = side === c.running ? Math.max(0, secs - (now - c.as_of)) : secs;
    const hh = Math.floor(left / 3600);
    const mm = Math.floor((left % 3600) / 60);
    const ss = Math.floor(left % 60);
    return `${side === c.running ? "▶ " : ""}${side} ${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}${(c.expired || []).includes(side) ? " (expired)" : ""}`;
  }).join("  ");
}
setInterval(() => S.view && renderClock(), 1000);

function renderUnitList() {
  const list = $("unit-list");
  list.innerHTML = "";
  const av = S.available;
  const canAct = new Map(((av && av.units) || []).map((u) => [u.unit, u.kinds]));
  for (const u of units()) {
    if (u.destroyed || u.eliminated) continue;
    const kinds = canAct.get(u.id);
    const b = h("button", { type: "button", role: "option", class: `unit-btn side-${sideIndex(u.side)}${kinds ? " can-act" : ""}`, "data-unit": u.id, "aria-selected": String(u.id === S.selected), onclick: () => selectUnit(u.id) }, kinds ? `${u.id} ▸` : u.id);
    b.title = `${unitLabel(u)}${kinds ? ` — may now: ${kinds.join(", ")}` : ""}`;
    list.appendChild(b);
  }
  renderAvailable();
}

// "What can I do now", as the API answers it for this seat (a hint: rulings decide).
function renderAvailable() {
  const box = $("available");
  box.innerHTML = "";
  const av = S.available;
  // End phase is offered only while this seat may end the phase (another side's phase: not)
  const end = $("end-phase");
  end.disabled = !S.seat || Boolean(av && !av.may_end_phase);
  end.title = end.disabled && S.seat ? "Not yours to end: the phase belongs to another side." : "";
  if (!av) {
    box.append(h("p", { class: "hint" }, S.seat ? "" : "Spectators watch; they cannot act."));
    return;
  }
  box.append(h("p", { "data-may-act": String(av.may_act) },
    h("strong", {}, av.may_act ? "You may act now" : "Not your turn to act"),
    av.kinds.length ? `: ${av.kinds.join(", ")}` : "",
    av.may_end_phase ? " · you may end the phase" : "",
    (av.sealed || []).length ? ` · sealed orders due: ${av.sealed.map((d) => d.id || d).join(", ")}` : "",
    " ", cites(av.citations)),
    ...(av.notes || []).map((n) => h("p", { class: "hint" }, n)));
}

function renderLegend() {
  const L = $("legend");
  L.innerHTML = "";
  const sw = (fill, label, extra) => h("span", { class: "legend-item" }, h("span", { class: "swatch", style: `background:${fill};${extra || ""}` }), label);
  const sides = sideIds().map((s, i) => sw(PALETTE.sides[i], s));
  const items = [...sides];
  if (S.kind === "hex") {
    for (const t of S.boardApi.terrains) items.push(sw(TERRAIN_COLOURS[t] || "#eee", t.replace("_", " ")));
    for (const f of S.boardApi.features) items.push(sw(HEXSIDE_COLOURS[f] || "#444", `${f.replace("_", " ")} hexside`));
    items.push(sw(PALETTE.zone, "enemy zone (hatched)", "background-image:repeating-linear-gradient(45deg,#E69F00 0 3px,transparent 3px 8px)"));
    items.push(sw(PALETTE.negated, "negated zone (dotted)", "background-image:radial-gradient(#0b4f77 1.5px,transparent 2px);background-size:6px 6px"));
    items.push(sw(PALETTE.blocked, "blocked projection (✕ dashed hexside)"));
    items.push(sw("transparent", "reachable: cost; ! must stop; ⊘ in range, not reachable", `border:3px solid ${PALETTE.reach}`));
    items.push(sw("transparent", "where the unit must stop", `border:3px solid ${PALETTE.stop};outline:2px solid #000`));
    items.push(sw("#F0E442", "marker (letter = kind, edge = side)", "transform:rotate(45deg) scale(.8)"));
    items.push(sw("transparent", "supply line (dotted, side colour)", `border-bottom:3px dotted ${PALETTE.sides[0]}`));
    if (S.board.front_table) items.push(sw("transparent", "front hexside", "border-bottom:3px solid #000"));
  } else if (S.kind === "table") {
    for (const k of S.boardApi.kinds) items.push(sw(FEATURE_COLOURS[k] || "#ccc", k.replace("_", " ")));
    if (S.boardApi.hasOutlines) items.push(sw("#CC79A7", "objective zone (dashed outline; click for its display)", "opacity:.5"));
    items.push(h("span", { class: "legend-item" }, "grid: 100 yards"));
  } else {
    items.push(h("span", { class: "legend-item" }, "zone cards: class · capacity · trafficability · sectors · In-Transit"));
  }
  L.append(h("strong", {}, "Legend "), ...items);
}

// ---------------------------------------------------------------- acting
function moveSchema() {
  const actions = (S.meta && S.meta.schemas && S.meta.schemas.actions) || {};
  return actions.move && actions.move.properties && actions.move.properties.path ? actions.move : null;
}

async function selectUnit(id, at) {
  if (S.replay) return; // the replay shows the past: leave it to act
  if (S.zoneOrders && S.zoneOrders.pickUnit(id)) return; // a target or a battalion of the order being built
  // With a unit selected, a counter in another hex is a step of the path (e.g. through a
  // friendly stack); pick another unit from the list, or press Escape first.
  const current = unitById(S.selected);
  if (current && S.selected !== id && S.kind === "hex" && at && at !== current.hex) {
    return clickHex(at);
  }
  // firing: a click on an enemy counter names the target (hexorders.js)
  if (S.orders && S.orders.claimUnit(id)) return;
  S.submitted = null;
  if (S.selected === id) {
    S.selected = null;
  } else {
    S.selected = id;
  }
  S.path = [];
  S.moveSector = null;
  renderSectorMenu();
  S.ruling = null;
  renderRuling(null);
  $("path-input").value = "";
  $("submit-move").disabled = true;
  prefillActionForm();
  // the orders start afresh now, not after the overlays: what is chosen meanwhile stays
  if (S.orders) S.orders.select();
  await refreshOverlays();
  renderAll();
}

function clickHex(hex) {
  if (S.replay) return;
  if (!S.selected) {
    const here = units().filter((u) => u.hex === hex);
    if (here.length) return selectUnit(here[0].id);
    return;
  }
  perf.clickAt = performance.now();
  if (S.path[S.path.length - 1] === hex) S.path.pop();
  else S.path.push(hex);
  pathChanged();
}

async function clickPoint(p, zoneId) {
  if (S.replay) return;
  if ($("los-mode").checked) {
    S.los = S.los.length >= 2 ? [p] : [...S.los, p];
    let res = null;
    if (S.los.length === 2) {
      try {
        res = (await S.api.query(S.gameId, "line-of-sight", { from: S.los[0], to: S.los[1] })).body.result;
        const box = $("ruling");
        box.innerHTML = "";
        box.append(h("p", { class: `verdict ${res.clear ? "legal" : "illegal"}`, "data-los": String(res.clear) }, h("strong", {}, res.clear ? "Sight line clear" : "Sight line blocked"), ` — ${res.yards} yards from ${S.los[0]} to ${S.los[1]}`),
          h("ul", {}, ...res.blocked_by.map((b) => h("li", {}, `${b.feature} (${b.kind}) for ${b.yards} yd `, citeButton(b.section)))), cites(res.citations));
      } catch (err) {
        notify(problemText(err), "error");
      }
    }
    S.boardApi.drawLos(S.los, res);
    return;
  }
  if (S.zoneOrders && S.zoneOrders.pickPoint(p, zoneId)) return; // a zone, point or path of an order
  if (!S.selected || (S.orders && S.orders.enabled && !S.orders.takesPoints())) return zoneId ? showZone(zoneId) : showTerrainAt(p);
  perf.clickAt = performance.now();
  S.path.push(p);
  pathChanged();
}

// A zone outlined on the table: its display, as the ruleset's `zone` query gives it.
async function showZone(zoneId) {
  try {
    const z = (await S.api.query(S.gameId, "zone", { zone: zoneId })).body.result;
    const box = $("hex-info");
    box.innerHTML = "";
    box.append(h("div", { "data-zone-info": zoneId }, h("strong", {}, `${z.name} — Class ${z.class}`),
      ` capacity ${z.capacity} · trafficability ${z.trafficability} · guns ≤ ${z.gun_limit} · ${z.contested ? `contested by ${z.contested_by}` : "uncontested"} `, cites(z.citations),
      h("ul", {}, ...Object.entries(z.sectors || {}).map(([sid, sec]) => h("li", {}, `sector ${sid}: ${sec.holder || "empty"} ${(sec.units || []).join(", ")}`)),
        h("li", {}, `In-Transit: ${(z.in_transit || []).join(", ") || "none"}`))));
  } catch (err) {
    notify(problemText(err), "error");
  }
}

// With no unit selected, a click on the table asks what the ground there means.
async function showTerrainAt(p) {
  if (!queryNames().has("terrain-at")) return;
  try {
    const res = (await S.api.query(S.gameId, "terrain-at", { at: p })).body.result;
    const box = $("hex-info");
    box.innerHTML = "";
    box.append(h("strong", {}, `${p[0]}, ${p[1]} yd: `), res.features.length ? "" : "open ground ", cites(res.citations),
      h("ul", { class: "terrain-at" }, ...res.features.map((f) => h("li", { "data-feature": f.feature }, `${f.feature} (${f.kind.replace("_", " ")})${f.blocks_sight ? ", blocks sight" : ""}: `,
        Object.entries(f.by_unit_type).map(([who, what]) => `${who} ${what}`).join("; ")))));
  } catch (err) {
    notify(problemText(err), "error");
  }
}

function pathText() {
  return S.path.map((p) => (Array.isArray(p) ? p.join(",") : p)).join(" ");
}

// The Path box: points in yards ("500,180") on a table, hex ids ("e3207") on a hex map. Returns
// {path} or {error} saying what is wrong and what to type instead.
function parsePath(text) {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (S.kind === "table") {
    const bad = tokens.find((t) => !/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/.test(t));
    if (bad !== undefined) return { error: `“${bad}” is not a point. On this table type points in yards as x,y (e.g. 500,180), separated by spaces; or click the table.` };
    return { path: tokens.map((t) => t.split(",").map(Number)) };
  }
  const bad = tokens.find((t) => t.includes(","));
  if (bad !== undefined) return { error: `“${bad}” is not a hex id. On this map type hex ids (e.g. ${Object.keys(S.board.hexes || {})[0] || "e3207"}), separated by spaces; or click the hexes.` };
  return { path: tokens };
}

// The zone a table path ends in (battlefield: a move that crosses a zone's border ends in it and
// enters it), found on the drawn outlines -- placement only: the ruling judges the entry.
function zoneAtEnd(path) {
  const end = path.length ? path[path.length - 1] : null;
  if (S.kind !== "table" || !Array.isArray(end) || !S.board.outlines) return null;
  const [x, y] = end;
  for (const [zid, poly] of Object.entries(S.board.outlines)) {
    let inside = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [xi, yi] = poly[i];
      const [xj, yj] = poly[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
    if (inside) return zid;
  }
  return null;
}

// The sector menu of a move that enters a zone, where the move's schema has a sector (battlefield):
// "any free sector" leaves the choice to the rules (the first free one), else sector 1..capacity.
function renderSectorMenu() {
  const box = $("path-sector-row");
  if (!box) return;
  const props = (moveSchema() || {}).properties || {};
  const zid = props.sector && S.path.length ? zoneAtEnd(S.path) : null;
  const zones = (S.board.zones && (S.board.zones.zones || S.board.zones)) || {};
  const zone = zid ? zones[zid] || {} : null;
  const display = zid ? (S.displays || {})[zid] || {} : {};
  const cap = zone ? display.capacity ?? zone.capacity ?? 0 : 0;
  box.hidden = !zone || !cap;
  if (box.hidden) {
    S.moveSector = null;
    return;
  }
  if (S.moveSector && (S.moveSector > cap || S.moveSectorZone !== zid)) S.moveSector = null;
  S.moveSectorZone = zid;
  const sel = $("path-sector");
  sel.innerHTML = "";
  sel.append(new Option(`any free sector of ${zone.name || zid}`, ""));
  for (let i = 1; i <= cap; i++) {
    const held = ((display.sectors || {})[String(i)] || {}).holder;
    sel.append(new Option(`${zone.name || zid}, sector ${i}${held ? ` (held by ${held === "engaged" ? "both: engaged" : held})` : ""}`, String(i)));
  }
  sel.value = S.moveSector ? String(S.moveSector) : "";
}

// The move the Path box describes: the selected unit along the path (and the sector it enters).
function plainMove() {
  if (!S.path.length) return null;
  const move = { kind: "move", unit: S.selected, path: S.path };
  if (S.moveSector && zoneAtEnd(S.path)) move.sector = S.moveSector;
  return move;
}

async function pathChanged() {
  $("path-input").value = pathText();
  $("path-input").removeAttribute("aria-invalid");
  // the path built on the board also fills the path of a retreat, a charge… in the form
  const field = $("action-form").querySelector("[name=path]");
  if (field) field.value = S.path.length ? JSON.stringify(S.path) : "";
  if (S.orders) S.orders.pathEdited();
  S.ruling = null;
  renderSectorMenu();
  drawPath();
  // the order the board and the order controls describe (hexorders.js), else a plain move
  const action = S.orders && S.orders.enabled ? S.orders.body() : plainMove();
  if (!action) {
    S.lastAsked = null;
    renderRuling(null);
    $("submit-move").disabled = true;
    return;
  }
  const asked = JSON.stringify(action);
  S.lastAsked = asked;
  try {
    const r = (await S.api.request("POST", `/games/${S.gameId}/rulings`, { body: action })).body;
    if (S.lastAsked !== asked) return;
    S.ruling = r;
    S.rulingAction = action;
    renderRuling(r, null, action);
    drawPath();
    // only a move the dry run found legal can be submitted (the server would refuse the other)
    $("submit-move").disabled = !S.seat || !r.legal;
    $("submit-move").title = r.legal ? "" : "The ruling says this move is illegal: change the path first.";
    if (perf.clickAt) {
      perf.rulings.push(performance.now() - perf.clickAt);
      perf.clickAt = null;
    }
    document.body.dataset.rulingFor = asked;
  } catch (err) {
    if (S.lastAsked !== asked) return;
    S.ruling = null;
    renderRuling(null);
    $("submit-move").disabled = true;
    $("ruling").append(h("p", { class: "verdict illegal" }, problemText(err)));
  }
}

// Submit for real: If-Match with the ETag we drew from, a fresh Idempotency-Key.
export async function submit(path, body, extraHeaders, ifMatch) {
  const headers = { ...(extraHeaders || {}) };
  if (S.physicalDice && S.seat === "umpire") headers["Referee-Dice"] = S.physicalDice;
  const before = S.view.version;
  try {
    const r = await S.api.write(path, body, ifMatch || S.etag, headers);
    if (r.headers.get("ETag")) S.etag = r.headers.get("ETag");
    notify(r.body && r.body.ruling ? `Done: ${r.body.ruling.summary}` : "Done.", "ok");
    clearPath();
    await refreshAfterChange();
    return r.body;
  } catch (err) {
    if (err instanceof ApiError && err.status === 412) {
      await refreshAfterChange();
      const evs = (await S.api.get(`/games/${S.gameId}/events?after=${before - 1}`)).body.items || [];
      const what = evs.map((e) => `#${e.seq} ${e.seat}: ${(e.ruling && e.ruling.summary) || e.kind}`).join("; ");
      notify(`The game changed since you looked (version ${before} → ${S.view.version}): ${what || "see the log"}. The board is refreshed; check and submit again.`, "error");
      document.body.dataset.stale = "true";
    } else {
      if (err instanceof ApiError && err.problem && err.problem.ruling) renderRuling(err.problem.ruling);
      notify(problemText(err), "error");
    }
    return null;
  }
}

// Drop the pending path and its dry run (after a write: what was clicked before is history).
function clearPath() {
  S.path = [];
  S.moveSector = null;
  renderSectorMenu();
  S.lastAsked = null;
  S.ruling = null;
  if (S.orders) S.orders.reset();
  $("path-input").value = "";
  $("path-input").removeAttribute("aria-invalid");
  $("submit-move").disabled = true;
  const field = $("action-form").querySelector("[name=path]");
  if (field) field.value = "";
}

async function refreshAfterChange() {
  await refreshView();
  await refreshOverlays();
  renderAll();
  if (S.path.length) await pathChanged();
}

function setupActions() {
  $("path-input").onchange = () => {
    const typed = parsePath($("path-input").value);
    const input = $("path-input");
    if (typed.error) {
      input.setAttribute("aria-invalid", "true");
      S.path = [];
      S.lastAsked = null;
      S.ruling = null;
      renderRuling(null);
      drawPath();
      $("submit-move").disabled = true;
      $("ruling").append(h("p", { class: "verdict illegal path-error", role: "alert" }, typed.error));
      return;
    }
    input.removeAttribute("aria-invalid");
    S.path = typed.path;
    pathChanged();
  };
  $("path-sector").onchange = () => {
    S.moveSector = $("path-sector").value ? Number($("path-sector").value) : null;
    pathChanged();
  };
  $("path-clear").onclick = () => {
    S.path = [];
    pathChanged();
  };
  $("submit-move").onclick = async () => {
    const body = S.orders && S.orders.enabled ? S.orders.body() : plainMove();
    if (!S.selected || !body) return;
    const unit = S.selected;
    document.body.dataset.submitting = "true";
    const res = await submit(`/games/${S.gameId}/actions`, body);
    if (res) {
      await refreshOverlays();
      renderAll();
      renderRuling(res.ruling, null, body);
      S.submitted = { ruling: res.ruling, action: body };
      drawPath();
      // the Submit button is disabled now: the focus goes back to the unit that moved
      focusUnit(unit, S.kind === "zones" ? "#unit-list" : "#board");
    }
    // the ruling shown now is the submitted one, drawn once: its buttons stay
    document.body.dataset.submitting = "false";
  };
  // orders by pointing (zoi, zoc, terrain): the controls go above the Path box
  let host = $("orders");
  if (!host) {
    host = h("div", { id: "orders", class: "orders", "aria-label": "Orders for the selected unit" });
    $("path-box").before(host);
  }
  S.orders = createOrders({ S, h, host, cites, onChange: () => pathChanged() });
  $("path-box").hidden = !moveSchema();
  const kinds = Object.keys((S.meta.schemas && S.meta.schemas.actions) || {});
  const sel = $("action-kind");
  sel.innerHTML = "";
  for (const k of kinds) sel.appendChild(new Option(k, k));
  sel.onchange = prefillActionForm;
  prefillActionForm();
  const actionBody = () => S.actionForm.value();
  $("action-dry").onclick = async () => {
    try {
      const r = await S.api.request("POST", `/games/${S.gameId}/rulings`, { body: actionBody() });
      renderRuling(r.body);
    } catch (err) {
      notify(problemText(err), "error");
    }
  };
  $("action-submit").onclick = async () => {
    let body;
    try {
      body = actionBody();
    } catch (err) {
      return notify(`Not JSON: ${err.message}`, "error");
    }
    const res = await submit(`/games/${S.gameId}/actions`, body);
    if (res) {
      // done with that unit and path: drop them, so nothing stale is judged again
      S.selected = null;
      S.reach = null;
      renderAll();
      renderRuling(res.ruling);
    }
  };
  $("end-phase").onclick = () => submit(`/games/${S.gameId}/phase/end`, undefined);
  $("invite-spectator").hidden = !S.seat;
  $("invite-spectator").onclick = inviteSpectator;
  $("takeback").onclick = () => submit(`/games/${S.gameId}/takeback`, undefined);
  for (const b of ["submit-move", "action-submit", "end-phase", "takeback"]) $(b).disabled = !S.seat || b === "submit-move";
  $("takeback").hidden = !(S.view.match && S.view.match.takeback);
  $("end-phase").hidden = !S.view.position;
}

// A read-only spectator token minted by this seat (works for private games too).
async function inviteSpectator() {
  try {
    const t = (await S.api.request("POST", `/games/${S.gameId}/tokens`, { body: { label: "console spectator link" } })).body;
    const link = spectatorTokenLink(S.gameId, t.token);
    const box = $("invite-box");
    box.innerHTML = "";
    box.append("Read-only link (shown once; revoke it with DELETE /games/{id}/tokens/", h("code", {}, t.id), "): ",
      linkField(h, link, { label: "the spectator link", cls: "spectator-url" }), " ",
      h("a", { href: link, class: "spectator-invite", target: "_blank", rel: "noopener" }, "open"), linkWarning(h) || "");
  } catch (err) {
    notify(problemText(err), "error");
  }
}

// Text from the schemas' descriptions with ``code`` (reStructuredText) or `code` shown as code.
export function withCode(textValue) {
  return String(textValue).split(/``([^`]+)``|`([^`]+)`/).map((part, i) => {
    if (part === undefined) return null;
    return i % 3 === 0 ? part : h("code", {}, part);
  });
}

// Menus for the form's zone, unit and target fields of a game with objective zones
// (objective-zones, battlefield): the board's zones and the units shown, not free text.
function formChoices() {
  const b = S.board || {};
  if (!b.zones) return null;
  const zones = Object.entries(b.zones.zones || b.zones).filter(([, z]) => z && typeof z === "object" && !Array.isArray(z));
  const us = units().filter((u) => !u.destroyed && !u.eliminated).map((u) => [u.id, `${u.id} (${u.side})`]);
  return { zone: zones.map(([id, z]) => [id, z.name || id]), unit: us, target: us };
}

function prefillActionForm() {
  const kind = $("action-kind").value;
  const schema = ((S.meta && S.meta.schemas.actions) || {})[kind];
  if (!schema) return;
  const pre = {};
  if (S.selected && schema.properties && schema.properties.unit) pre.unit = S.selected;
  if (S.path.length && schema.properties && schema.properties.path) pre.path = S.path;
  S.actionForm = schemaForm(schema, pre, `act-${kind}`, formChoices());
  const host = $("action-form");
  host.innerHTML = "";
  if (schema.description) host.append(h("p", { class: "hint" }, ...withCode(schema.description)));
  host.append(S.actionForm.node);
}

// ---------------------------------------------------------------- events and panels
function onEvent(ev) {
  const fresh = !S.events.has(ev.seq);
  S.events.set(ev.seq, ev);
  appendLog(ev);
  if (S.replayApi) S.replayApi.onEvent(ev);
  if (fresh) onGameEvent(ev);
  if (fresh && ev.version && S.view && ev.version > S.view.version) scheduleRefresh();
  else if (fresh && S.view && bearsOnLosses(ev)) scheduleRedraw();
  if (S.kind === "zones" && ev.kind === "sealed_revealed") scheduleRefresh();
}

// An event the counters' loss marks are read from (narrate.js bearsOnLosses) can arrive after
// the board was drawn for its version (the log replayed on opening, or a write's own refresh
// winning the race with the stream): the board is drawn again from the events then, with
// nothing to fetch.
let redrawTimer = null;
function scheduleRedraw() {
  clearTimeout(redrawTimer);
  redrawTimer = setTimeout(() => { if (S.view) renderAll(); }, 30);
}

let refreshTimer = null;
function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refreshAfterChange().catch((err) => notify(problemText(err), "error")), 60);
}

function appendLog(ev) {
  const log = $("log");
  const id = `ev-${ev.seq}`;
  const old = document.getElementById(id);
  const r = ev.ruling || {};
  const li = h("li", { id, "data-seq": ev.seq, "data-kind": ev.kind, class: ev.redacted ? "redacted" : "" },
    h("span", { class: "seq" }, `#${ev.seq}`), " ", h("strong", {}, ev.kind), ` by ${ev.seat}: `,
    h("span", { class: "summary" }, ev.redacted ? "(hidden from you)" : r.summary || ""),
    " ", cites(r.citations));
  if (ev.kind === "sealed_received" && ev.payload) li.append(h("div", { class: "commitment" }, `commitment ${ev.payload.commitment}`));
  // a reveal, and any ruling that rolled dice, told in words (narrate.js)
  if (ev.ruling && (ev.kind === "sealed_revealed" || (ev.dice || []).length)) li.append(narrate(ev.ruling, ev.action) || "");
  if (ev.kind === "sealed_revealed") verifyReveal(ev).then((ok) => li.append(h("div", { class: `check ${ok ? "ok" : "bad"}` }, ok ? "✔ every order matches its commitment" : "✘ an order does not match its commitment")));
  if ((ev.dice || []).length) li.append(h("div", { class: "dice-used" }, `dice: ${ev.dice.map((d) => `d${d.sides}=${d.value}`).join(" ")}`));
  if (S.seat === "umpire" && ev.version > 1) {
    const to = ev.version - 1;
    li.append(h("button", { type: "button", class: "rollback-here", "aria-label": `Roll back to the game as it was just before event ${ev.seq} (version ${to})`, onclick: () => submit(`/games/${S.gameId}/rollback`, { to_version: to }) }, `↶ undo from here (back to v${to})`));
  }
  appealButton(li, ev, { S, h, submit, notify });
  if (old) old.replaceWith(li);
  else {
    const after = [...log.children].find((n) => Number(n.dataset.seq) > ev.seq);
    log.insertBefore(li, after || null);
  }
}

async function sha256Hex(textValue) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(textValue));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function verifyReveal(reveal) {
  const { instance, orders } = reveal.payload || {};
  for (const [side, o] of Object.entries(orders || {})) {
    const receipt = [...S.events.values()].filter((e) => e.kind === "sealed_received" && e.seq < reveal.seq && e.payload && e.payload.instance === instance && e.payload.side === side).sort((a, b) => a.seq - b.seq).at(-1);
    if (!receipt) return false;
    if ((await sha256Hex(o.nonce + o.canonical)) !== receipt.payload.commitment) return false;
  }
  return true;
}

function renderPanels() {
  const ctx = { S, h, api: S.api, submit, notify, problemText, renderRuling, citeButton, refresh: refreshAfterChange };
  renderSealed($("sealed"), ctx).catch((err) => notify(problemText(err), "error"));
  renderDice($("dice"), ctx).catch((err) => notify(problemText(err), "error"));
  renderUmpire($("umpire"), ctx);
  renderAppeals($("appeals"), ctx);
}

function setupTabs() {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  const activate = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute("aria-controls")).hidden = !on;
    }
  };
  tabs.forEach((t, i) => {
    t.onclick = () => activate(t);
    t.onkeydown = (evt) => {
      const d = evt.key === "ArrowRight" ? 1 : evt.key === "ArrowLeft" ? -1 : 0;
      if (d) {
        const n = tabs[(i + d + tabs.length) % tabs.length];
        activate(n);
        n.focus();
      }
    };
  });
}

document.addEventListener("keydown", (evt) => {
  if (evt.key === "Escape" && S.zoneOrders && S.zoneOrders.active()) return S.zoneOrders.reset();
  if (evt.key === "Escape" && S.selected) {
    // the unit is put down: the focus stays on it in the list (its orders box goes away)
    const unit = S.selected;
    selectUnit(unit).then(() => {
      const a = document.activeElement;
      if (!a || a === document.body || !a.isConnected) focusUnit(unit, "#unit-list");
    });
  }
});

// ---------------------------------------------------------------- routing
async function route() {
  // GET /config goes out with the game's own requests (links are built after the first render)
  const configured = loadConfig(S.api);
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  notify("");
  if (!id) {
    await configured;
    return loadLobby();
  }
  const tok = params.get("token");
  if (tok) {
    sessionStorage.setItem(tokenKey(id), tok);
    // keep the token out of the address bar, history and bookmarks
    history.replaceState(null, "", `${location.pathname}#game=${encodeURIComponent(id)}`);
  }
  const spectator = params.get("as") === "spectator";
  const token = spectator ? null : sessionStorage.getItem(tokenKey(id));
  return openGame(id, token, configured);
}

setupTabs();
window.addEventListener("hashchange", route);
route().catch((err) => notify(problemText(err), "error"));
