// Rules at hand: the ruleset's catalog (GET /rulesets/{id}: each section's id, title and
// own-words summary) in a panel beside the board. Clicking a citation anywhere in the console
// (a ruling, its effects and violations, the log, the replay, the sealed orders…) opens that
// section there, with the interpretations that touch it -- and the reading this game was
// created with -- and the rulings of this game that cited it, from the event log as this seat
// reads it (a redacted event has no ruling to show).
import { readLog } from "./replay.js";

const $ = (id) => document.getElementById(id);

let current = null; // the panel of the game open now
let wired = false;

export function setupRules(ctx) {
  current = createRules(ctx);
  if (!wired) {
    wired = true;
    // every citation is a button.cite (app.js citeButton): one listener serves them all
    document.addEventListener("click", (evt) => {
      const b = evt.target.closest && evt.target.closest("button.cite");
      if (b && current) current.open(b.dataset.section, b.dataset.ruleset, b.dataset.title);
    });
  }
  return current;
}

// Does a ruling cite (ruleset, section) -- itself, in a violation or in an effect?
export function cites(ruling, ruleset, section) {
  if (!ruling) return false;
  const lists = [ruling.citations, ...(ruling.violations || []).map((v) => v.citations), ...(ruling.effects || []).map((e) => e.citations)];
  return lists.some((list) => (list || []).some((c) => (typeof c === "string" ? c === section : c.section === section && (!c.ruleset || c.ruleset === ruleset))));
}

function createRules({ S, h, notify, problemText }) {
  const panel = $("rules-panel");
  const metas = new Map([[S.meta.id, S.meta]]); // other rulesets' catalogs, read when cited
  const box = h("div", { id: "rules-section", class: "rules-section", "aria-live": "polite", "aria-label": "The rule section opened" });
  const list = h("ol", { class: "rules-catalog", "aria-label": `Catalog of ${S.meta.id}` },
    ...S.meta.catalog.map((c) => h("li", { "data-section": c.id },
      h("button", { type: "button", class: "rules-entry", "data-section": c.id, "aria-label": `Open rule ${c.id}: ${c.title}`, onclick: () => open(c.id, S.meta.id) }, `§${c.id}`),
      " ", h("strong", { class: "rules-title" }, c.title),
      h("div", { class: "rules-summary" }, c.summary))));
  panel.innerHTML = "";
  panel.append(h("summary", {}, `Rules at hand: ${S.meta.title || S.meta.id} ${S.meta.version || ""}`), box, list);
  let asked = 0;

  async function catalogOf(ruleset) {
    if (!metas.has(ruleset)) metas.set(ruleset, (await S.api.get(`/rulesets/${encodeURIComponent(ruleset)}`)).body);
    return metas.get(ruleset);
  }

  // which reading this game follows: the option's value against its default
  function reading(meta, i) {
    if (meta.id !== S.meta.id) return null;
    const schema = ((meta.schemas && meta.schemas.options && meta.schemas.options.properties) || {})[i.option] || {};
    const options = (S.view && S.view.options) || {};
    const value = i.option in options ? options[i.option] : schema.default;
    const fallback = schema.default === undefined ? false : schema.default;
    const standard = JSON.stringify(value === undefined ? fallback : value) === JSON.stringify(fallback);
    return { value: value === undefined ? fallback : value, standard };
  }

  async function open(section, ruleset, label) {
    const rs = ruleset || S.meta.id;
    const ticket = ++asked;
    panel.open = true;
    panel.dataset.section = section;
    panel.dataset.ruleset = rs;
    for (const li of list.children) li.classList.toggle("current", li.dataset.section === section && rs === S.meta.id);
    box.innerHTML = "";
    let meta = null;
    if (rs !== "referee") {
      try {
        meta = await catalogOf(rs);
      } catch (err) {
        notify(problemText(err), "error");
      }
    }
    let log = [];
    try {
      log = await readLog(S);
    } catch (err) {
      notify(problemText(err), "error");
    }
    if (ticket !== asked) return;
    const entry = (meta && meta.catalog.find((c) => c.id === section)) || null;
    box.append(h("h4", { class: "rules-heading" }, `§${section} `, entry ? entry.title : (label || "")));
    if (rs !== S.meta.id) box.append(h("p", { class: "hint" }, rs === "referee" ? "A policy of the service (docs/API.md, Service policies)." : `From the ${rs} ruleset.`));
    if (entry) box.append(h("p", { class: "rules-summary" }, entry.summary));
    const citing = log.filter((ev) => !ev.redacted && cites(ev.ruling, rs, section));
    box.append(h("h5", {}, "Rulings of this game that cite it"),
      citing.length
        ? h("ul", { class: "rules-rulings" }, ...citing.map((ev) => h("li", { "data-seq": ev.seq },
          h("span", { class: "seq" }, `#${ev.seq}`), " ", h("strong", {}, ev.kind), ` by ${ev.seat}: `,
          h("span", { class: `summary ${ev.ruling.legal ? "legal" : "illegal"}` }, ev.ruling.summary || ""))))
        : h("p", { class: "hint rules-none" }, "None yet (of the events your seat may read)."));
    const touching = ((meta && meta.interpretations) || []).filter((i) => (i.sections || []).some((x) => x === section || x.startsWith(`${section}.`)));
    if (touching.length) {
      box.append(h("h5", {}, "Interpretations that touch it"), h("ul", { class: "rules-interpretations" }, ...touching.map((i) => {
        const r = reading(meta, i);
        return h("li", { "data-interpretation": i.id },
          h("code", {}, i.id), " ", i.question || "",
          h("div", {}, h("strong", {}, "Reading: "), i.reading || ""),
          h("div", {}, h("strong", {}, "Other reading: "), i.alternative || "", " (game option ", h("code", {}, i.option), ")"),
          r ? h("div", { class: "rules-game-reading", "data-standard": String(r.standard) }, h("strong", {}, "This game: "), `${r.standard ? "the reading" : "the other reading"} (${i.option} = ${JSON.stringify(r.value)})`) : null);
      })));
    }
    box.scrollIntoView({ block: "nearest" });
  }

  return { open };
}
