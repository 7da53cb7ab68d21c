// Table chat, shared by the table page and the replay: a message is a player's free text
// (always through a text node, never markup) or a quick phrase's key, shown in the reader's
// language. The server checks length, rate and phrase keys (protocol.check_chat). The text is a
// dir="auto" element: its own first strong character sets its direction, and it is isolated
// from the seat's label and the lines around it (see isolate() in common.js).
"use strict";

const Chat = (function () {
  const PHRASES = ["gg", "your_turn", "well_played", "thinking"];

  function line(m, seatLabel) {
    const words = m.phrase ? t("chat.phrase." + m.phrase) : m.text;
    return el("li", { class: "chat-line-item" + (m.phrase ? " phrase" : ""), "data-seq": m.seq, "data-version": m.version,
      "data-seat": m.seat, "data-phrase": m.phrase || null },
    bdi(seatLabel(m.seat), { class: "chat-who" }), ": ",
    el("span", { class: "chat-text", dir: "auto" }, words));
  }

  function render(box, messages, seatLabel) {
    clear(box);
    if (!messages.length) box.appendChild(el("li", { class: "chat-empty muted" }, t("chat.empty")));
    for (const m of messages) box.appendChild(line(m, seatLabel));
    box.scrollTop = box.scrollHeight;
  }

  return { PHRASES, render };
})();
