// Match panels: sealed orders, dice (commitment and a check of every roll), umpire tools.
import { invitationLink, linkField, linkWarning } from "./invite.js";
import { allocationBuilder } from "./alloc.js";
import { narrate } from "./narrate.js";

const drafts = {};

export async function renderSealed(box, ctx) {
  const { S, h, api, submit, notify, problemText } = ctx;
  const data = (await api.get(`/games/${S.gameId}/sealed`)).body;
  // an allocation builder still wanted is kept, not built again: a new version (the other
  // side's seal, a late event) must not blank the limits, menus and check the player is using
  // while the builder's own query runs again; the kept one re-runs its check on the new state
  // (kept for this very decision only: the same game, seat and instance of it -- a page
  // switched to another seat or game, or the decision opened again, builds a new one)
  const keyOf = (id, instance) => JSON.stringify([S.gameId, S.seat, id, instance]);
  const kept = new Map([...box.querySelectorAll("[data-builder]")].map((b) => [b.dataset.keptFor, b]));
  // taking a kept builder out of the page takes the focus from the menu being used in it:
  // given back once the builder is in again (a key pressed meanwhile goes to that menu)
  const active = box.contains(document.activeElement) ? document.activeElement : null;
  const caret = active && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  box.innerHTML = "";
  if (!data.open.length && !data.revealed.length) {
    box.append(h("p", { class: "hint" }, "No sealed decision is open. The rules open one when the game reaches it (e.g. an assault's troop allocation)."));
  }
  for (const d of data.open) {
    const mine = S.seat && d.sides.includes(S.seat);
    const card = h("section", { class: "sealed-card", "data-decision": d.id },
      h("h4", {}, d.title || d.id, " ", ctx.citeButton(d.citation)),
      h("p", {}, `Sides: ${d.sides.join(", ")} · waiting for: ${d.waiting.join(", ") || "nobody"}${d.awaiting_umpire ? " · awaiting the umpire's dice" : ""}`),
      h("ul", { class: "receipts" }, ...d.received.map((r) => h("li", { "data-side": r.side }, `${r.side}: sealed, commitment `, h("code", {}, r.commitment)))));
    if (d.own) card.append(h("p", { class: "own-order" }, "Your order (only you can read it until the reveal): ", h("code", {}, JSON.stringify(d.own.order || d.own))));
    const builder = ((S.meta && S.meta.queries) || []).some((q) => q.name === "allocation-options") && d.id.startsWith("allocation:");
    if (mine && !d.own && builder) {
      const key = keyOf(d.id, d.instance);
      const old = kept.get(key);
      if (old && old.recheck) {
        card.append(old);
        old.recheck();
      } else {
        const made = allocationBuilder(d, ctx, drafts);
        made.dataset.keptFor = key;
        card.append(made);
      }
    }
    if (mine && !d.own && !builder) {
      const area = h("textarea", { rows: 4, id: `order-${d.id}`, "aria-label": `Your sealed order for ${d.title || d.id} (JSON)`, placeholder: JSON.stringify(example(d.order_schema)) });
      area.value = drafts[d.id] || "";
      area.addEventListener("input", () => { drafts[d.id] = area.value; });
      const hintBox = h("div", { class: "hint" });
      const query = ((S.meta && S.meta.queries) || []).find((q) => q.name === "allocation-options");
      if (query && d.id.startsWith("allocation:")) {
        const zone = d.id.split(":")[1];
        api.query(S.gameId, "allocation-options", { zone, side: S.seat }).then((r) => {
          hintBox.textContent = `You may allocate: ${JSON.stringify(r.body.result)}`;
        }).catch(() => {});
      }
      const send = h("button", { type: "button", class: "seal-submit", onclick: async () => {
        let order;
        try {
          order = JSON.parse(area.value);
        } catch (err) {
          return notify(`Your order is not JSON: ${err.message}`, "error");
        }
        const res = await submit(`/games/${S.gameId}/sealed/${encodeURIComponent(d.id)}`, order, null, "*");
        if (res) {
          delete drafts[d.id];
          notify(`Order sealed: commitment ${res.commitment}${res.reveal ? " — all orders are in and revealed." : ""}`, "ok");
        }
      } }, "Seal and submit my order");
      card.append(h("label", { for: `order-${d.id}` }, "Your order (JSON)"), area, hintBox, send);
    }
    if (S.seat === "umpire") {
      card.append(h("button", { type: "button", onclick: async () => {
        const headers = S.physicalDice ? { "Referee-Dice": S.physicalDice } : {};
        try {
          await api.write(`/games/${S.gameId}/sealed/${encodeURIComponent(d.id)}/open`, undefined, S.etag, headers);
          await ctx.refresh();
        } catch (err) {
          notify(problemText(err), "error");
        }
      } }, "Open now (reveal what has arrived)"));
    }
    box.append(card);
  }
  if (data.revealed.length) {
    box.append(h("h4", {}, "Revealed"));
    for (const r of data.revealed) {
      const orders = (r.orders || (r.payload && r.payload.orders) || {});
      box.append(h("section", { class: "revealed-card", "data-instance": r.instance || r.decision || "" },
        h("p", {}, `${r.instance || r.decision}: `, (r.ruling && r.ruling.summary) || ""),
        narrate(r.ruling),
        h("ul", {}, ...Object.entries(orders).map(([side, o]) => h("li", {}, `${side}: `, h("code", {}, JSON.stringify(o.order !== undefined ? o.order : o)))))));
    }
  }
  if (active && active.isConnected && document.activeElement !== active) {
    active.focus({ preventScroll: true });
    if (caret) active.setSelectionRange(caret[0], caret[1]);
  }
}

function example(schema) {
  if (!schema || !schema.properties) return {};
  const out = {};
  for (const [k, v] of Object.entries(schema.properties)) out[k] = v.type === "object" ? {} : v.type === "array" ? [] : v.type === "integer" ? 0 : "";
  return out;
}

async function hmacRoll(seedHex, gameId, n, sides, clientSeed) {
  const seed = new Uint8Array(seedHex.match(/../g).map((x) => parseInt(x, 16)));
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const limit = 2n ** 64n - ((2n ** 64n) % BigInt(sides));
  for (let attempt = 0; ; attempt++) {
    const msg = new TextEncoder().encode(`referee-dice-v1|${gameId}|${n}|${sides}|${clientSeed || ""}|${attempt}`);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, msg));
    let x = 0n;
    for (let i = 0; i < 8; i++) x = (x << 8n) | BigInt(mac[i]);
    if (x < limit) return Number(x % BigInt(sides)) + 1;
  }
}

export async function renderDice(box, ctx) {
  const { S, h, api, notify, problemText } = ctx;
  const d = (await api.get(`/games/${S.gameId}/dice`)).body;
  box.innerHTML = "";
  box.append(
    h("p", {}, "Commitment (SHA-256 of the secret seed, published at creation): ", h("code", { class: "commitment" }, d.commitment)),
    h("p", {}, `Recipe ${d.recipe} · ${d.rolled} rolls so far · ${d.physical ? "physical dice entered by the umpire" : "derived from the seed"}`),
  );
  const list = h("ol", { class: "rolls", start: 0 }, ...(d.rolls || []).map((r) => h("li", { "data-n": r.n }, `roll ${r.n}: d${r.sides} = ${r.value}${r.entered_by ? " (entered by the umpire)" : ""}${r.event !== undefined ? ` · event ${r.event}` : ""}`)));
  box.append(list);
  if (!d.seed) {
    box.append(h("p", { class: "hint" }, "The seed is sealed until the game ends (or the umpire reveals it); then every roll can be checked here."));
    return;
  }
  const check = h("div", { class: "dice-check", "aria-live": "polite" });
  box.append(h("p", {}, "Seed: ", h("code", {}, d.seed)), check,
    h("button", { type: "button", onclick: async () => {
      try {
        const v = (await api.get(`/games/${S.gameId}/dice/verify`)).body;
        check.append(h("p", {}, `Server check: ${v.ok ? "all rolls verified" : "MISMATCH"} (${v.checked} checked, ${v.entered} entered)`));
      } catch (err) {
        notify(problemText(err), "error");
      }
    } }, "Ask the server to verify too"));
  const seedBytes = new Uint8Array(d.seed.match(/../g).map((x) => parseInt(x, 16)));
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", seedBytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
  let bad = 0;
  let checked = 0;
  for (const r of d.rolls || []) {
    if (r.entered_by) continue;
    checked++;
    if ((await hmacRoll(d.seed, S.gameId, r.n, r.sides, r.client_seed)) !== r.value) bad++;
  }
  check.append(h("p", { class: digest === d.commitment && !bad ? "check ok" : "check bad" },
    `${digest === d.commitment ? "✔ the seed matches the commitment" : "✘ the seed does not match the commitment"}; ${checked - bad} of ${checked} rolls re-derived in this browser${bad ? `, ${bad} differ` : ""}.`));
}

// The physical dice field is one element kept across renders: a live event re-renders the
// umpire's tools, and a new field would take the focus (and the keys still being typed) away
// from the umpire in the middle of entering the dice.
let diceField = null;

export function renderUmpire(box, ctx) {
  const { S, h, api, submit, notify, problemText } = ctx;
  const typing = diceField !== null && document.activeElement === diceField;
  const caret = typing ? [diceField.selectionStart, diceField.selectionEnd] : null;
  box.innerHTML = "";
  if (S.seat !== "umpire") {
    box.append(h("p", { class: "hint" }, "These tools need the umpire's seat."));
    return;
  }
  const toVersion = h("input", { type: "number", min: 1, max: Math.max(1, S.view.version - 1), id: "rollback-to", "aria-label": "Roll back to version", value: Math.max(1, S.view.version - 1) });
  // a game at its first version has nothing to roll back to (the server would say 422)
  const nothingYet = S.view.version <= 1;
  const winner = h("select", { id: "finish-winner", "aria-label": "Winner" }, new Option("no winner", ""), ...((S.view.sides || []).map((s) => new Option(s.name || s.id || s, s.name || s.id || s))));
  if (diceField === null) {
    diceField = h("input", { id: "physical-dice", "aria-label": "Physical dice for the next action, comma separated", placeholder: "e.g. 4,2", value: S.physicalDice });
    diceField.addEventListener("input", () => { S.physicalDice = diceField.value.trim(); });
  } else if (!typing && diceField.value.trim() !== S.physicalDice) {
    diceField.value = S.physicalDice;
  }
  const dice = diceField;
  const audit = h("div", { class: "audit", "aria-live": "polite" });
  // (DOM append writes null as the text "null": absent tools are filtered out)
  box.append(...[
    // a ruleset without a sequence of play has no phase to advance (409 phase.no_sequence)
    S.view.position ? h("div", {}, h("button", { type: "button", id: "advance-phase", onclick: () => submit(`/games/${S.gameId}/phase/advance`) }, "Advance phase")) : null,
    h("div", {}, h("label", { for: "rollback-to" }, "Roll back to version "), toVersion, h("button", { type: "button", id: "rollback-go", disabled: nothingYet, title: nothingYet ? "Nothing to roll back yet: the game is at its first version." : "", onclick: () => submit(`/games/${S.gameId}/rollback`, { to_version: Number(toVersion.value) }) }, "Roll back")),
    S.view.dice && S.view.dice.physical ? h("div", {}, h("label", { for: "physical-dice" }, "Physical dice (sent with your next action or open) "), dice) : null,
    h("div", {}, h("button", { type: "button", onclick: async () => {
      try {
        const r = (await api.get(`/games/${S.gameId}/audit`)).body;
        audit.textContent = r.ok ? `Audit clean: ${r.events} events re-adjudicated with ${r.replayed_version}.` : `Audit: first difference at event ${r.first_difference.seq} (${r.first_difference.field}): ${r.first_difference.message}`;
      } catch (err) {
        notify(problemText(err), "error");
      }
    } }, "Run the audit"), audit),
    ...(S.view.upgrade_available ? [upgradeTools(ctx)] : []),
    h("div", {}, h("button", { type: "button", onclick: () => submit(`/games/${S.gameId}/dice/reveal`) }, "Reveal the dice seed to me")),
    h("div", {}, h("label", { for: "finish-winner" }, "Finish the game: "), winner, h("button", { type: "button", onclick: () => submit(`/games/${S.gameId}/finish`, { winner: winner.value || null }) }, "Finish")),
    reissueSection(ctx),
  ].filter(Boolean));
  if (typing && dice.isConnected) {
    dice.focus();
    dice.setSelectionRange(caret[0], caret[1]);
  }
}

// A player lost their invitation link (or it leaked): the umpire issues a new token for the
// seat (POST /games/{id}/seats/{seat}/token); the old link stops working at once.
function reissueSection(ctx) {
  const { S, h, api, notify, problemText } = ctx;
  const seats = (S.view.sides || []).map((s) => s.name || s.id || s);
  const seat = h("select", { id: "reissue-seat", "aria-label": "Seat whose invitation link to reissue" }, ...seats.map((s) => new Option(s, s)));
  const revoke = h("input", { type: "checkbox", id: "reissue-revoke", checked: true });
  const result = h("div", { id: "reissue-result", class: "reissue-result", "aria-live": "polite" });
  const show = (r) => {
    result.innerHTML = "";
    if (!r) return;
    const made = r.revoke_minted
      ? `Revoked with it: ${r.revoked_tokens} spectator link${r.revoked_tokens === 1 ? "" : "s"} and ${r.removed_webhooks} webhook${r.removed_webhooks === 1 ? "" : "s"} that ${r.seat}'s old token had made.`
      : `The spectator links and webhooks that ${r.seat}'s old token made were kept.`;
    result.append(
      h("p", {}, h("strong", {}, `New invitation link for ${r.seat}: `), linkField(h, invitationLink(S.gameId, r.seat, r.token), { label: `the new ${r.seat} invitation link`, cls: "reissued-url" })),
      h("p", { class: "reissue-note" }, `The old ${r.seat} link stopped working: its token is refused from now on (401), and a page still open with it loses access. ${made} Send this new link to the player; it is shown only this once.`),
      linkWarning(h) || "",
    );
  };
  if (S.reissued && S.reissued.game === S.gameId) show(S.reissued);
  const reissue = async () => {
    const which = seat.value;
    if (!which) return;
    if (!window.confirm(`Issue a new invitation link for ${which}? The link ${which} has now stops working at once.`)) return;
    try {
      const path = `/games/${encodeURIComponent(S.gameId)}/seats/${encodeURIComponent(which)}/token?revoke_minted=${revoke.checked}`;
      const r = (await api.request("POST", path)).body;
      S.reissued = { ...r, revoke_minted: revoke.checked };
      show(S.reissued);
      notify(`A new invitation link for ${which} was issued; the old one no longer works.`, "ok");
    } catch (err) {
      notify(problemText(err), "error");
    }
  };
  return h("div", { class: "reissue" },
    h("h4", {}, "Invitation links"),
    h("p", { class: "hint" }, "A player lost their link, or it reached the wrong person: issue a new one for their seat. The old link stops working."),
    h("label", { for: "reissue-seat" }, "Seat "), seat, " ",
    h("label", {}, revoke, " also revoke the spectator links and webhooks the old token made"), " ",
    h("button", { type: "button", id: "reissue-btn", onclick: reissue }, "Issue a new link"),
    result);
}

const DIFFERS = { ruling: "the ruling differs", state: "the resulting state differs", dice: "the dice differ", error: "the replay fails" };

// The umpire's ruleset upgrade: preview what the running version judges differently, then upgrade.
function upgradeTools(ctx) {
  const { S, h, api, submit, notify, problemText } = ctx;
  const out = h("div", { class: "upgrade", id: "upgrade-result", "aria-live": "polite" });
  const perform = h("button", { type: "button", id: "upgrade-perform", hidden: true, onclick: () => submit(`/games/${S.gameId}/upgrade`) }, `Upgrade to ${S.view.ruleset_running_version}`);
  const preview = h("button", { type: "button", id: "upgrade-preview", onclick: async () => {
    try {
      const p = (await api.get(`/games/${S.gameId}/upgrade`)).body;
      out.innerHTML = "";
      const changed = p.changed || [];
      out.append(h("p", {}, changed.length
        ? `${p.to_version} judges ${changed.length}${p.truncated ? " or more" : ""} event${changed.length === 1 ? "" : "s"} of the log differently from ${p.from_version}:`
        : `${p.to_version} judges every event of the log as ${p.from_version} did.`));
      if (changed.length) out.append(h("ul", { class: "upgrade-list" }, ...changed.map((c) => h("li", {}, `event ${c.seq} (${c.kind}): ${DIFFERS[c.field] || c.message}`))));
      perform.hidden = !p.upgrade_available;
    } catch (err) {
      notify(problemText(err), "error");
    }
  } }, "Preview the upgrade");
  return h("div", {}, h("p", {}, `Ruleset upgrade: ${S.view.ruleset_version} → ${S.view.ruleset_running_version}`), preview, perform, out);
}
