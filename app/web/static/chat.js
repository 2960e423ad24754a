// Table talk (issue 26): a chat panel beside the event log. Messages to all, to one side or
// to the umpire; the list and the live stream (GET /games/{id}/messages/stream) show only what
// this reader may read -- the server filters, the console never sees anything else.

let current = null;

// Mount the panel for the open game. ctx: {S, h, notify, problemText, sideIds}.
export function setupChat(ctx) {
  const { S, h } = ctx;
  if (current) current.stop();
  const host = document.getElementById("chat");
  host.innerHTML = "";
  const seen = new Map();
  const list = h("ol", { id: "chat-list", class: "chat-list", "aria-live": "polite", "aria-label": "Messages" });
  host.appendChild(h("h3", {}, "Table talk ", h("span", { id: "chat-status", class: "stream-status" })));
  host.appendChild(list);

  if (S.seat) {
    const recipients = ["all", ...ctx.sideIds().filter((s) => s !== S.seat)];
    if (S.seat !== "umpire") recipients.push("umpire");
    const to = h("select", { id: "chat-to", "aria-label": "Recipient" },
      recipients.map((r) => h("option", { value: r }, r === "all" ? "everyone" : `${r} (private)`)));
    const text = h("textarea", { id: "chat-text", rows: "2", maxlength: "2000", "aria-label": "Message" });
    const send = h("button", { type: "submit", id: "chat-send" }, "Send");
    const form = h("form", { id: "chat-form", class: "chat-form", onsubmit: async (ev) => {
      ev.preventDefault();
      if (!text.value.trim()) return;
      send.disabled = true;
      try {
        const r = await S.api.request("POST", `/games/${encodeURIComponent(S.gameId)}/messages`,
          { body: { to: to.value, text: text.value } });
        show(r.body);
        text.value = "";
      } catch (err) {
        ctx.notify(ctx.problemText(err), "error");
      } finally {
        send.disabled = false;
      }
    } }, h("label", {}, "To ", to), text, send);
    host.appendChild(form);
  } else {
    host.appendChild(h("p", { class: "muted" }, "Spectators read the public table talk only."));
  }

  function show(m) {
    if (!m || seen.has(m.seq)) return;
    const item = h("li", { "data-seq": m.seq, "data-to": m.to, class: m.private ? "private" : "public" },
      h("span", { class: "chat-who" }, m.to === "all" ? `${m.sender}:` : `${m.sender} → ${m.to} (private):`),
      " ",
      h("span", { class: "chat-text" }, m.text));
    seen.set(m.seq, item);
    // keep the list in seq order (a posted message may arrive before the stream's earlier ones)
    const after = [...list.children].find((li) => Number(li.dataset.seq) > m.seq);
    list.insertBefore(item, after || null);
    list.scrollTop = list.scrollHeight;
  }

  const stream = S.api.stream(S.gameId, null, show, (s) => {
    document.getElementById("chat-status").textContent = s;
    document.body.dataset.chat = s;
  }, "messages/stream");
  current = { stop: () => stream.stop() };
  return current;
}
