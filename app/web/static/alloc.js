// The allocation builder: a sealed troop allocation (objective-zones, battlefield) built by
// pointing. Each unit the side may allocate (the `allocation-options` query) gets a sector
// menu; each sector shows what is in it (castings, infantry, guns) and the limits the query and
// the board give (capacity, A.36 forts, infantry per sector); the whole order is dry-run with
// POST /games/{id}/sealed/{decision}/check after every change, and only a legal order can be
// sealed. The check is the truth; the builder only displays.

function zoneUnits(S) {
  const st = S.view.state || {};
  return (st.zones && st.zones.units) || st.units || [];
}

function zoneSpec(S, zid) {
  const b = S.board || {};
  const zones = (b.zones && (b.zones.zones || b.zones)) || {};
  return zones[zid] || {};
}

export function allocationBuilder(d, ctx, drafts) {
  const { S, h, api, submit, notify, problemText, renderRuling } = ctx;
  const zid = d.id.split(":")[1];
  const zone = zoneSpec(S, zid);
  const card = h("div", { class: "alloc-builder", "data-builder": d.id, role: "group", "aria-label": `Allocation builder for ${zone.name || zid}` });
  const limits = h("ul", { class: "alloc-limits" });
  const rows = h("div", { class: "alloc-rows" });
  const sectorsBox = h("div", { class: "alloc-sectors", "aria-live": "polite" });
  const verdict = h("div", { class: "alloc-check", "aria-live": "polite", "aria-label": "Dry run of the whole order" });
  const send = h("button", { type: "button", class: "seal-submit", disabled: true }, "Seal and submit my order");
  const picks = drafts[d.id] && drafts[d.id].picks ? drafts[d.id].picks : {};
  drafts[d.id] = { ...(drafts[d.id] || {}), picks };
  let sectors = [];
  let opts = null;
  let checkSeq = 0;
  let checked = null;

  // read from the position shown now (the card outlives versions: see renderSealed)
  const unitOf = (id) => zoneUnits(S).find((u) => u.id === id) || { id };
  const describe = (id) => {
    const u = unitOf(id);
    const bits = [u.grade && u.type !== "artillery" ? u.grade : null, u.type, u.type === "artillery" ? `${u.sections} section${u.sections === 1 ? "" : "s"}` : null, `${u.men} casting${u.men === 1 ? "" : "s"}`].filter(Boolean);
    return `${id} · ${bits.join(" · ")}`;
  };

  const order = () => {
    const out = {};
    for (const [uid, sec] of Object.entries(picks)) {
      if (!sec) continue;
      (out[sec] = out[sec] || []).push(uid);
    }
    return { sectors: out };
  };

  const drawSectors = () => {
    sectorsBox.innerHTML = "";
    const o = order().sectors;
    const attacker = opts && opts.role === "attacker";
    for (const n of sectors) {
      const ids = o[n] || [];
      const units = ids.map(unitOf);
      const inf = units.filter((u) => u.type === "infantry").length;
      const guns = units.filter((u) => u.type === "artillery").length;
      const men = units.reduce((t, u) => t + (u.type === "artillery" ? 0 : u.men || 0), 0);
      const notes = [];
      if (attacker && opts.every_sector && inf < opts.infantry_needed_per_sector) notes.push(`needs ${opts.infantry_needed_per_sector} infantry unit`);
      if (attacker && zone.fort && ids.length > 2) notes.push("a large fort takes at most 2 attacking units per sector (A.36)");
      if (!attacker && units.filter((u) => u.type !== "artillery").length > 1) notes.push("one battalion per sector");
      if (!attacker && !ids.length) notes.push("left undefended");
      sectorsBox.append(h("div", { class: `alloc-sector${notes.length ? " warn" : ""}`, "data-sector": n },
        h("strong", {}, `Sector ${n}`), `: ${ids.length ? ids.join(", ") : "nobody"} — ${men} casting${men === 1 ? "" : "s"} (battalions), ${inf} infantry unit${inf === 1 ? "" : "s"}${guns ? `, ${guns} batter${guns === 1 ? "y" : "ies"}` : ""}`,
        notes.length ? h("span", { class: "alloc-note" }, ` (${notes.join("; ")})`) : ""));
    }
  };

  const runCheck = async () => {
    drawSectors();
    const mine = ++checkSeq;
    const body = order();
    card.dataset.checking = "true";
    try {
      const r = (await api.request("POST", `/games/${S.gameId}/sealed/${encodeURIComponent(d.id)}/check`, { body })).body;
      if (mine !== checkSeq) return;
      checked = r.ruling;
      verdict.innerHTML = "";
      renderRuling(r.ruling, verdict);
      send.disabled = !r.ruling.legal;
      send.title = r.ruling.legal ? "" : "The dry run says this order breaks the rules: change it first.";
    } catch (err) {
      if (mine !== checkSeq) return;
      checked = null;
      verdict.innerHTML = "";
      verdict.append(h("p", { class: "verdict illegal" }, problemText(err)));
      send.disabled = true;
    }
    card.dataset.checking = "false";
    card.dataset.checkedFor = JSON.stringify(body);
  };

  const unitRow = (uid, note) => {
    const sel = h("select", { id: `alloc-${d.id}-${uid}`.replace(/[^A-Za-z0-9_-]/g, "_"), "data-unit": uid, "aria-label": `Sector for ${uid}` },
      new Option("not allocated", ""), ...sectors.map((n) => new Option(`sector ${n}`, String(n))));
    sel.value = picks[uid] || "";
    sel.addEventListener("change", () => {
      picks[uid] = sel.value;
      runCheck();
    });
    return h("div", { class: "alloc-row", "data-unit": uid }, h("label", { for: sel.id }, describe(uid), note ? h("span", { class: "hint" }, ` ${note}`) : ""), " ", sel);
  };

  let loading = false;
  const load = () => { loading = true; return api.query(S.gameId, "allocation-options", { zone: zid, side: S.seat }).then((res) => {
    loading = false;
    opts = res.body.result;
    sectors = opts.sectors.map(String);
    limits.innerHTML = "";
    const li = (t, secs) => h("li", {}, t, ...(secs || []).map((s) => [" ", ctx.citeButton(s)]).flat());
    limits.append(li(`${zone.name || zid}: ${sectors.length} combat sector${sectors.length === 1 ? "" : "s"} (the zone's capacity).`, ["OZ.Assault.B.1"]));
    if (zone.fort) limits.append(li("A large fort: at most two attacking units on a sector.", ["A.36"]));
    if (opts.role === "attacker") {
      limits.append(li(opts.every_sector ? `At least ${opts.infantry_needed_per_sector} infantry unit in every sector.` : "Infantry in every sector you attack.", ["OZ.Assault.B.4"]));
      limits.append(li("Batteries support a sector and never attack alone.", ["OZ.Assault.B.5"]));
      for (const u of opts.assaulting) rows.append(unitRow(u, "(declared in the assault)"));
      for (const u of opts.batteries) rows.append(unitRow(u, "(battery on the table)"));
    } else {
      limits.append(li("One garrison battalion per sector (and its guns); every garrison battalion placed; others fill empty sectors first.", ["OZ.Assault.B.3"]));
      if ((opts.undefended_if_garrison_only || []).length) limits.append(li(`With the garrison alone, sector ${opts.undefended_if_garrison_only.join(", ")} would be undefended.`, ["OZ.Assault.B.2"]));
      if ((opts.must_flee || []).length) limits.append(li(`In-Transit batteries must flee, not fight: ${opts.must_flee.join(", ")}.`, ["OZ.Basic.F"]));
      for (const g of opts.garrison) {
        if (!(g.unit in picks)) picks[g.unit] = g.sector ? String(g.sector) : "";
        rows.append(unitRow(g.unit, `(garrison${g.sector ? `, sector ${g.sector}` : ""})`));
      }
      for (const u of opts.guns) rows.append(unitRow(u, "(garrison guns)"));
      for (const u of opts.in_transit) rows.append(unitRow(u, "(In-Transit)"));
      for (const u of opts.outside) rows.append(unitRow(u, "(on the table)"));
    }
    for (const sel of rows.querySelectorAll("select")) sel.value = picks[sel.dataset.unit] || "";
    runCheck();
  }).catch((err) => {
    loading = false;
    limits.innerHTML = "";
    limits.append(h("li", { class: "verdict illegal" }, problemText(err)));
  }); };
  load();

  // the rare order the builder cannot express can still be typed (the check judges it too)
  const area = h("textarea", { rows: 3, id: `order-${d.id}`, "aria-label": `Your sealed order for ${d.title || d.id} as JSON (instead of the builder)`, placeholder: '{"sectors": {"1": ["unit"]}}' });
  area.value = drafts[d.id].json || "";
  area.addEventListener("input", () => { drafts[d.id].json = area.value; });

  send.addEventListener("click", async () => {
    let body = order();
    if (area.value.trim()) {
      try {
        body = JSON.parse(area.value);
      } catch (err) {
        return notify(`Your order is not JSON: ${err.message}`, "error");
      }
    }
    const res = await submit(`/games/${S.gameId}/sealed/${encodeURIComponent(d.id)}`, body, null, "*");
    if (res) {
      delete drafts[d.id];
      notify(`Order sealed: commitment ${res.commitment}${res.reveal ? " — all orders are in and revealed." : ""}`, "ok");
    }
  });
  area.addEventListener("change", () => { send.disabled = !area.value.trim() && !(checked && checked.legal); });

  // the sealed panel keeps this card across versions and asks it to check again
  // (its options not loaded yet: asked again, unless still being asked)
  card.recheck = () => { if (opts) runCheck(); else if (!loading) load(); };
  card.append(
    h("h5", {}, `Your allocation (${S.seat})`),
    limits,
    h("p", { class: "hint" }, "Pick a sector for each unit you commit. The order is checked by the server as you fill it; only a legal order can be sealed."),
    rows, sectorsBox, verdict, send,
    h("details", { class: "alloc-json" }, h("summary", {}, "…or type the order as JSON"), area),
  );
  return card;
}
