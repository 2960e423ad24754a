// Rulings told in words: who did what, every die labelled with who rolled it and what for, the
// casualties, morale and captures, with the rules cited inline (each § opens the rules panel).
// Everything said here is read from the ruling the API returned; nothing is judged here.
import { h, citeButton, state as S } from "./app.js";

const LEVELS = ["", "ONE", "TWO", "THREE", "FOUR"];

// A d10 as rolled 1-10 read 0-9 (a 10 reads 0: interpretation oz.d10).
const reading = (d) => (d === 10 ? 0 : d);

function sideLabel(side) {
  const s = ((S.view && S.view.sides) || []).find((x) => (typeof x === "string" ? x : x.id || x.name) === side);
  return (s && typeof s === "object" && s.label) || side || "";
}

function zoneName(zid) {
  const b = S.board || {};
  const zones = (b.zones && (b.zones.zones || b.zones)) || {};
  const z = zones[zid];
  return (z && z.name) || zid;
}

const cite = (sections) => (sections || []).map((c) => [" ", citeButton(c)]).flat();
const effectsOf = (r, kind) => (r.effects || []).filter((e) => e.kind === kind);
const list = (ids) => (ids || []).join(", ");

// One unit's melee dice: "us-1 (union, attacking, level THREE: hits on 0-2) rolled 7, 1, 0: 2 hits".
function rollText(roll, role) {
  const lvl = roll.level || 0;
  const raised = roll.raised ? `, raised ${roll.raised} by the zone` : "";
  const hitsOn = lvl ? `hits on 0${lvl > 1 ? `–${lvl - 1}` : ""}` : "no hits";
  if (!(roll.dice || []).length) return `${roll.unit} (${sideLabel(roll.side)}, ${role}) rolls no dice`;
  const dice = roll.dice.map((d) => {
    const r = reading(d);
    return r < lvl ? `${r}✓` : `${r}`;
  }).join(", ");
  return `${roll.unit} (${sideLabel(roll.side)}, ${role}, level ${LEVELS[lvl] || lvl}${raised}: ${hitsOn}) rolled ${dice}: ${roll.hits} hit${roll.hits === 1 ? "" : "s"}`;
}

const RESULT = {
  shattered: "the defenders are shattered and removed",
  engaged: "attackers and defenders stay engaged",
  taken: "the sector was undefended and is taken",
  held: "the defenders hold",
  not_attacked: "not attacked",
};

// The narrative of a resolved assault (or a melee round): details.sectors with every roll.
function assaultStory(r) {
  const d = r.details || {};
  const zone = zoneName(d.zone);
  const sectors = Object.entries(d.sectors || {});
  const attackers = [...new Set(sectors.flatMap(([, s]) => s.attackers || []))];
  const attackerRoll = sectors.flatMap(([, s]) => s.rolls || []).find((x) => attackers.includes(x.unit));
  const attacker = attackerRoll ? sideLabel(attackerRoll.side) : "The attacker";
  const given = sectors.reduce((n, [, s]) => n + (s.inflicted_by_attacker || 0), 0);
  const taken = sectors.reduce((n, [, s]) => n + (s.inflicted_by_defender || 0), 0);
  const out = h("div", { class: "narrative", "data-narrative": "assault" });
  if (d.called_off) {
    out.append(h("p", {}, `The assault on ${zone} is called off: the attacker gave no allocation.`, ...cite(r.citations)));
    return out;
  }
  const goesOn = effectsOf(r, "oz.melee_continues")[0];
  const opening = goesOn
    ? `The melee in ${zone} goes on, ${attacker} ${list(attackers)} attacking`
    : `${attacker} ${list(attackers)} assault${attackers.length === 1 ? "s" : ""} ${zone} in ${sectors.length} sector${sectors.length === 1 ? "" : "s"}`;
  const headline = [`${opening}: ${given} hit${given === 1 ? "" : "s"} inflicted, ${taken} taken`];
  const captured = effectsOf(r, "oz.zone_captured")[0];
  if (captured) headline.push(`; ${zone} captured by ${list(captured.by)}, earliest exit turn ${captured.details && captured.details.earliest_exit}`);
  out.append(h("p", { class: "headline" }, h("strong", {}, headline.join("") + "."), ...(goesOn ? cite(goesOn.citations) : []), ...(captured ? cite(captured.citations) : [])));
  const ul = h("ul", { class: "sector-story" });
  for (const [sid, s] of sectors) {
    const att = new Set(s.attackers || []);
    const rolls = (s.rolls || []).map((x) => h("li", { class: "die-line", "data-unit": x.unit }, rollText(x, att.has(x.unit) ? "attacking" : "defending")));
    const sectorEffects = (r.effects || []).filter((e) => e.details && String(e.details.sector) === String(sid));
    // the sector's result is said once, with the rules of its effect; morale is said below
    const RESULT_KINDS = { shattered: "oz.shattered", engaged: "oz.engaged", taken: "oz.sector_taken", not_attacked: "oz.not_attacked" };
    const resultEffect = sectorEffects.find((e) => e.kind === RESULT_KINDS[s.result]);
    const said = [];
    for (const e of sectorEffects) {
      if (["oz.casualties", "oz.morale_check"].includes(e.kind) || e === resultEffect) continue;
      said.push(h("span", { class: "sector-effect", "data-kind": e.kind }, `${e.message}${(e.by || []).length ? ` (${list(e.by)})` : ""}`, ...cite(e.citations), ". "));
    }
    const cas = sectorEffects.find((e) => e.kind === "oz.casualties");
    const defenders = (s.defenders || []).length ? list(s.defenders) : "nobody";
    ul.append(h("li", { "data-sector": sid },
      h("strong", {}, `Sector ${sid}`), (s.attackers || []).length ? `: ${list(s.attackers)} against ${defenders}. ` : `: nobody attacks ${defenders}. `,
      h("ul", { class: "dice-story" }, ...rolls),
      `Attacker inflicts ${s.inflicted_by_attacker}, takes ${s.inflicted_by_defender}`, ...(cas ? cite(cas.citations) : []),
      h("span", { class: "sector-result", "data-result": s.result }, `: ${RESULT[s.result] || s.result}${resultEffect && (resultEffect.by || []).length ? ` (${list(resultEffect.by)})` : ""}`),
      ...(resultEffect ? cite(resultEffect.citations) : []), ". ", ...said));
  }
  out.append(ul);
  const losses = Object.entries(d.losses || {});
  if (losses.length) out.append(h("p", { class: "losses" }, `Castings lost: ${losses.map(([u, n]) => `${u} −${n}`).join(", ")}.`));
  if ((d.removed || []).length) out.append(h("p", { class: "removed" }, `Removed from play: ${list(d.removed)}.`));
  const due = effectsOf(r, "oz.morale_check");
  if (due.length) {
    const who = due.flatMap((e) => e.by || []);
    out.append(h("p", { class: "morale-due" }, `Morale: ${list(who)} must test (one d10 each, the Test morale order)`, ...cite(due[0].citations), "."));
  }
  for (const e of effectsOf(r, "oz.destroyed")) out.append(h("p", {}, `${e.message}`, ...cite(e.citations), "."));
  return out;
}

function moraleStory(r, action) {
  const d = r.details || {};
  const unit = (action && action.unit) || ((r.effects || [])[0] || {}).unit || "The unit";
  const e = (r.effects || []).find((x) => /^oz\.morale_(passed|failed)$/.test(x.kind));
  const verdict = d.passed ? "passes" : "fails";
  return h("div", { class: "narrative", "data-narrative": "morale" },
    h("p", {}, h("strong", {}, `${unit} tests morale (${d.cause || "due"}): needs ${d.pass_from} or more on a d10 read 0–9, rolled ${d.roll}, and ${verdict}.`),
      ...cite(e ? e.citations : r.citations),
      d.passed ? "" : " What a failure does is the main rules' (the umpire's) call."));
}

// A bombardment (OZ.Basic.G): the battery's dice, each read against the level it hits at.
function bombardStory(r, action) {
  const e = effectsOf(r, "oz.bombard_hits")[0];
  const d = e.details || {};
  const lvl = d.level || 0;
  const dice = (d.dice || []).map((x) => (reading(x) < lvl ? `${reading(x)}✓` : `${reading(x)}`)).join(", ");
  const who = (action && action.unit) || "The battery";
  const losses = Object.entries(d.losses || {});
  const due = effectsOf(r, "oz.morale_check")[0];
  return h("div", { class: "narrative", "data-narrative": "bombard" },
    h("p", {}, h("strong", {}, `${who} bombards ${zoneName(d.zone)} (${d.box === "transit" ? "the In-Transit box" : "the garrison"}): ${(d.dice || []).length} dice hitting on 0${lvl > 1 ? `–${lvl - 1}` : ""} rolled ${dice || "nothing"}: ${d.hits} hit${d.hits === 1 ? "" : "s"}`), ...cite(e.citations), "."),
    losses.length ? h("p", { class: "losses" }, `Castings lost: ${losses.map(([u, n]) => `${u} −${n}`).join(", ")}.`, due ? [` ${list(due.by)} must test morale`, ...cite(due.citations), "."] : "") : null);
}

// An assault declared (a declaration, or a battlefield charge into a held zone): who, where,
// against whom, and the sealed allocation it opens; other effects follow as said.
function declareStory(r) {
  const e = effectsOf(r, "oz.assault_declared")[0];
  const zid = (e.details && e.details.zone) || (r.details && r.details.zone);
  const zone = zoneName(zid);
  const pending = effectsOf(r, "oz.allocation_pending")[0];
  const contested = effectsOf(r, "oz.contested")[0];
  const attacker = sideLabel(String(e.message || "").split(" ")[0]);
  const defender = r.details && r.details.defender ? sideLabel(r.details.defender) : null;
  const rest = (r.effects || []).filter((x) => ![e, pending, contested].includes(x) && x.message);
  return h("div", { class: "narrative", "data-narrative": "declare" },
    h("p", {},
      h("strong", {}, `${attacker} declares an assault on ${zone} with ${list(e.by)}`), ...cite(e.citations),
      defender ? `; ${defender} defends it` : "",
      contested ? ["; the zone is contested", ...cite(contested.citations)] : "",
      pending ? [`; both sides now owe a sealed troop allocation for its ${pending.details && pending.details.sectors} sector${pending.details && pending.details.sectors === 1 ? "" : "s"}, made in the Objective Combat phase`, ...cite(pending.citations)] : "",
      "."),
    rest.length ? h("p", {}, ...rest.map((x) => [x.message, ...cite(x.citations), ". "]).flat()) : null);
}

function genericStory(r) {
  // the zone rules' effects (oz.*, bf.*) are told here; other rulesets' rulings keep their
  // summary and consequences as they are
  const effects = (r.effects || []).filter((e) => e.message && /^(oz|bf)\./.test(e.kind));
  if (!effects.length) return null;
  return h("div", { class: "narrative", "data-narrative": "effects" },
    h("p", {}, ...effects.map((e) => [h("span", { class: "effect-said", "data-kind": e.kind }, e.message, (e.by || []).length && !String(e.message).includes(e.by[0]) ? ` (${list(e.by)})` : "", e.details && e.details.earliest_exit ? `, earliest exit turn ${e.details.earliest_exit}` : ""), ...cite(e.citations), ". "]).flat()));
}

// The narrative of a ruling (with the action it judged, when known), or null when the ruling
// has nothing to tell beyond its summary.
export function narrate(r, action) {
  if (!r || !r.legal) return null;
  const d = r.details || {};
  if (d.sectors && typeof d.sectors === "object" && !Array.isArray(d.sectors)) return assaultStory(r);
  if (d.roll !== undefined && d.pass_from !== undefined) return moraleStory(r, action);
  if (effectsOf(r, "oz.bombard_hits").length) return bombardStory(r, action);
  if (effectsOf(r, "oz.assault_declared").length) return declareStory(r);
  return genericStory(r);
}

// The events still in force: a rollback, a takeback or an appeal overridden by rollback restores
// the state of the version its payload's to_version names, so the events after that version no
// longer count (the log keeps them; the state does not).
function restores(ev) {
  const to = ev.payload && ev.payload.to_version;
  return Number.isInteger(to) && (ev.kind === "rollback" || ev.kind === "takeback" || ev.kind === "appeal_decided") ? to : null;
}

export function inForce(events) {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const asOf = new Map(); // version -> the events in force once it was reached
  let now = [];
  for (const ev of sorted) {
    const to = restores(ev);
    if (to !== null) {
      let base = asOf.get(to);
      if (!base) base = now.filter((e) => e.version <= to); // versions not seen: keep what came before
      now = [...base];
    } else {
      now = [...now, ev];
    }
    if (ev.version !== undefined) asOf.set(ev.version, now);
  }
  return now;
}

// Castings lost and units removed by the rulings still in force (assaults, melees,
// bombardments; none undone by a rollback or takeback), for the counters on the board.
// Whether an event changes what lossesOf gives: castings lost or units removed, or a rollback
// that takes earlier ones out of force.
export function bearsOnLosses(ev) {
  const d = (ev.ruling && ev.ruling.details) || {};
  if (d.losses && Object.keys(d.losses).length) return true;
  if (Array.isArray(d.removed) && d.removed.length) return true;
  return restores(ev) !== null;
}

export function lossesOf(events) {
  const losses = {};
  const removed = new Set();
  for (const ev of inForce(events)) {
    const d = (ev.ruling && ev.ruling.details) || {};
    for (const [u, n] of Object.entries(d.losses || {})) losses[u] = (losses[u] || 0) + n;
    for (const u of d.removed || []) removed.add(u);
  }
  return { losses, removed };
}
