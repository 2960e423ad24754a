// Interpretation what-if (issue 26 item 3): from an interpretation's card, ask what the game's
// log would have become under the other reading (POST /games/{id}/what-if) and list the
// changed rulings in words. The umpire may ask at any time, the players once the game is over,
// spectators never. Every judgement comes from the server; nothing is computed here.

const ASPECT_WORDS = {
  violations: "violations differ",
  effects: "effects differ",
  citations: "citations differ",
  interpretations: "readings relied on differ",
  details: "details differ",
  summary: "summary differs",
};

// May this reader ask? (The server checks again: 403 whatif.not_yet / token.read_only.)
export function mayAskWhatIf(S) {
  if (!S.seat || !S.view) return false;
  return S.seat === "umpire" || S.view.status === "finished";
}

// The other reading's option value: a boolean flipped, or another value the options schema
// allows (enum / const alternatives). Undefined when there is no single other value.
export function otherValue(option, value, optionsSchema) {
  if (typeof value === "boolean") return !value;
  const prop = optionsSchema && optionsSchema.properties && optionsSchema.properties[option];
  if (!prop) return undefined;
  const choices = prop.enum || (prop.anyOf || prop.oneOf || []).filter((s) => "const" in s).map((s) => s.const);
  const others = (choices || []).filter((c) => JSON.stringify(c) !== JSON.stringify(value));
  return others.length ? others[0] : undefined;
}

// One change in words: "event 3 (move): legal → illegal" or "event 5 (move): effects differ, citations differ".
export function changeWords(c) {
  const parts = [];
  if (c.differs.includes("legal")) parts.push(`${c.recorded.legal ? "legal" : "illegal"} → ${c.replayed.legal ? "legal" : "illegal"}`);
  for (const d of c.differs) if (ASPECT_WORDS[d] && !(d === "summary" && parts.length)) parts.push(ASPECT_WORDS[d]);
  return `event ${c.seq} (${c.kind}): ${parts.join(", ")}`;
}

function renderReport(h, out, report) {
  out.innerHTML = "";
  const changed = report.changed || [];
  const opts = Object.entries(report.changed_options || {}).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ");
  out.append(h("p", { class: "whatif-summary" }, `Under ${opts || "the game's own options"}: ${report.summary}`));
  if (changed.length) {
    out.append(h("ul", { class: "whatif-list" }, ...changed.map((c) => h("li", { "data-seq": c.seq, "data-differs": c.differs.join(" ") }, changeWords(c)))));
  }
  if (report.hidden_changes) {
    out.append(h("p", { class: "whatif-hidden" }, `${report.hidden_changes} event${report.hidden_changes === 1 ? "" : "s"} hidden from you also change${report.hidden_changes === 1 ? "s" : ""}.`));
  }
  if (report.stopped) out.append(h("p", { class: "whatif-stopped", "data-seq": report.stopped.seq }, `${report.stopped.message[0].toUpperCase()}${report.stopped.message.slice(1)}.`));
}

// The button under one interpretation of a ruling (null when this reader may not ask, or the
// interpretation has no option with a single other value).
export function whatIfTools(interp, ctx) {
  const { S, h, problemText } = ctx;
  if (!mayAskWhatIf(S) || !interp.option) return null;
  const schema = S.meta && S.meta.schemas && S.meta.schemas.options;
  const other = otherValue(interp.option, interp.value, schema);
  if (other === undefined) return null;
  const out = h("div", { class: "whatif-result", "aria-live": "polite" });
  const button = h("button", {
    type: "button",
    class: "whatif-btn",
    "data-option": interp.option,
    "aria-label": `What if the other reading? Replay this game with ${interp.option} = ${JSON.stringify(other)}`,
    onclick: async () => {
      button.disabled = true;
      out.textContent = "Replaying the game under the other reading…";
      try {
        const r = await S.api.request("POST", `/games/${encodeURIComponent(S.gameId)}/what-if`, { body: { options: { [interp.option]: other } } });
        renderReport(h, out, r.body);
      } catch (err) {
        out.textContent = problemText(err);
      } finally {
        button.disabled = false;
      }
    },
  }, "What if the other reading?");
  return h("div", { class: "whatif" }, button, out);
}
