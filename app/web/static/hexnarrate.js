// A ruling of `zoi`, `zoc` or `terrain` told in a few sentences, each followed by the sections it
// rests on; and the marks it leaves on the board (increments or steps lost on the counters,
// yards per feature along a measured path). Words only: every figure is the ruling's own.

const VERBS = {
  move: "moves", melee_retreat: "retreats from the melee", retreat: "retreats", trace_supply: "traces supply",
  charge: "charges", fire: "fires", hold: "takes a posture",
};

const list = (xs) => (xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);

// yards per feature, with the feature's name and kind from the board: [{id, label, yards}]
// (battlefield gives the terrain measure under details.terrain)
export function measured(r) {
  const d = (r && r.details) || {};
  if (d.yards_by_feature) return d;
  return d.terrain && d.terrain.yards_by_feature ? d.terrain : null;
}

export function yardsByFeature(r, board) {
  const d = measured(r) || {};
  const features = (board && (board.table && board.table.features ? board.table.features : board.features)) || [];
  return Object.entries(d.yards_by_feature || {}).map(([id, yards]) => {
    const f = features.find((x) => x.id === id) || {};
    const kind = (f.kind || "").replace("_", " ");
    return { id, yards, label: `${f.name || id}${kind ? ` (${kind})` : ""}` };
  });
}

// What the ruling does to the counters: [{unit, hex, text, title}] drawn on the hex board.
export function boardMarks(r, action) {
  if (!r || !action) return [];
  const d = r.details || {};
  const marks = [];
  if (d.increments_before !== undefined && d.increments_after !== undefined && d.increments_before !== d.increments_after) {
    const lost = d.increments_before - d.increments_after;
    marks.push({ unit: action.unit, hex: d.final_hex, text: d.eliminated ? "✕" : `−${lost}`, title: `${action.unit}: ${d.increments_before} → ${d.increments_after} increments${d.eliminated ? ", eliminated" : ""}` });
  }
  for (const e of r.effects || []) {
    if (!e.hex || !/lost|loss|eliminat|step/.test(e.kind)) continue;
    const n = (e.details && e.details.loss) || 1;
    marks.push({ unit: e.unit, hex: e.hex, text: `−${n}`, title: e.message, where: "left" });
  }
  return marks;
}

export function narrative(r, action, { h, citeButton, board, units, facingName }) {
  if (!r || !action) return null;
  const d = r.details || {};
  const u = (units || []).find((x) => x.id === action.unit);
  const who = u ? `${u.name || u.id}${u.name ? ` (${u.id})` : ""}` : action.unit || "The umpire";
  const sentences = [];
  const say = (textValue, citations) => sentences.push({ textValue, citations: citations || [] });

  // what was ordered, in words
  let lead = `${who} ${VERBS[action.kind] || action.kind}`;
  const facing = (f, formation) => (facingName ? facingName(action.unit, f, formation) : String(f));
  if (action.steps) {
    let formation = u && u.formation;
    const words = action.steps.map((s) => {
      if (s.do === "formation") formation = s.formation;
      return s.do === "enter" ? `enters ${s.hex}` : s.do === "face" ? `turns to face ${facing(s.facing, formation)}` : s.do === "formation" ? `forms ${String(s.formation).replace("_", " ")}` : `${s.do}s`;
    });
    lead = `${who} ${list(words)}`;
  } else if (action.path && action.path.length && !Array.isArray(action.path[0])) {
    lead += ` through ${action.path.join(" → ")}`;
  } else if (action.path && action.path.length) {
    lead += ` by ${action.path.length} waypoint${action.path.length > 1 ? "s" : ""}`;
  }
  if (action.overrun) lead += `, overrunning ${action.overrun}`;
  if (action.kind === "fire") lead += ` at ${action.target}`;
  // "ordered to hold" / "ordered to advance" (the posture's name is holding / advancing)
  if (action.kind === "hold") lead = `${who} is ordered to ${{ holding: "hold", advancing: "advance" }[action.posture] || action.posture}`;
  if (action.kind === "retreat") lead += ` (${action.length} hex${action.length === 1 ? "" : "es"} by the combat result)`;
  if (action.kind === "melee_retreat" && action.result) lead += ` after melee result ${action.result}`;
  say(`${lead}.`);

  // the measures the ruling gives
  if (d.mp_spent !== undefined) say(`It spends ${d.mp_spent} MP${d.mp_left !== undefined ? `, ${d.mp_left} left` : ""}${d.final ? `, and ends in ${d.final.hex}${d.final.formation ? ` in ${String(d.final.formation).replace("_", " ")}` : ""}${d.final.facing !== null && d.final.facing !== undefined ? ` facing ${facing(d.final.facing, d.final.formation)}` : ""}` : ""}.`);
  if (d.movement_allowance !== undefined && d.cost !== undefined) say(`It spends ${d.cost} of ${d.movement_allowance} MP${d.end_hex && !action.overrun ? ` and ends in ${d.end_hex}` : ""}.`);
  if (d.path_yards !== undefined) {
    const parts = yardsByFeature(r, board).map((f) => `${f.yards} yd in ${f.label}`);
    say(`The path measures ${d.path_yards} yd${d.cost !== undefined ? `, costing ${d.cost} of ${d.allowance} yd` : ""}${parts.length ? `: ${list(parts)}` : ", all in the open"}.`);
  }
  if (d.increments_before !== undefined) say(`${action.unit} goes from ${d.increments_before} to ${d.increments_after} increments (${d.zone_loss || 0} for enemy zones, ${d.result_loss || 0} for the result)${d.eliminated ? " and is eliminated" : ""}.`);
  if (action.kind === "retreat" && d.end_hex) say(`It ends in ${d.end_hex}${d.shortfall ? `, ${d.shortfall} hex${d.shortfall === 1 ? "" : "es"} short of the result` : ""}.`);
  let told = null; // an effect this says already, in more words
  if (action.kind === "trace_supply" && d.path && d.in_supply) {
    told = (r.effects || []).find((e) => e.kind === "zoc.in_supply") || null;
    say(`Supply line ${d.path.join(" → ")}: ${d.length}${d.max_length !== undefined ? ` of at most ${d.max_length}` : ""} hex${d.length === 1 ? "" : "es"}, from ${d.source}.`, told ? told.citations : []);
  }

  // what follows, and what forbids it
  for (const e of r.effects || []) if (e !== told) say(e.message, e.citations);
  for (const v of r.violations || []) say(`Not allowed: ${v.message}`, v.citations);
  if (!(r.effects || []).length && !(r.violations || []).length) say(r.summary, r.citations);
  say(r.legal ? "The referee allows it." : "The referee refuses it: nothing changes.");

  return h("p", { class: "narrative", "data-narrative": action.kind },
    ...sentences.flatMap((s) => [s.textValue, ...s.citations.map((c) => [" ", citeButton(c)]).flat(), " "]));
}
