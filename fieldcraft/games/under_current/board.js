// Under Current's board: the Central File Row, every seat's hand size and what this seat knows of
// roles and cards, its own role and hand, and the reveal at the end.
// Registered with the shared Boards (server/static/boards.js); T reads this game's own words.
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, seatName } = kit;

  const UC_COLOURS = { Blue: "blue", Red: "red", Green: "green", Yellow: "yellow" };

  function ucCard(name, opts) {
    const o = opts || {};
    if (!name) {
      return el("div", { class: "card back" + (o.small ? " small" : ""), title: T("face_down") },
        el("span", { class: "back-mark" }, "✦"));
    }
    const [colour, effect] = name.split("/");
    const cls = UC_COLOURS[colour] || "plain";
    return el("div", { class: "card c-" + cls + (o.small ? " small" : "") + (o.down ? " known-down" : ""), "data-card": name, title: name },
      el("span", { class: "colour" }, colour), el("span", { class: "effect" }, effect || ""),
      o.down ? el("span", { class: "badge" }, T("face_down")) : null);
  }

  function ucRole(name) {
    const cls = UC_COLOURS[(name || "").split(" ")[0]] || "plain";
    return el("span", { class: "role r-" + cls }, name);
  }

  function draw(obs, ctx) {
    const root = el("div", { class: "uc" });
    const players = obs.players;
    const status = [T("turn", { n: (obs.turn || 0) + 1 }), T("deck", { n: obs.deck_count })];
    if (obs.final_round) status.push(T("final_round", { n: obs.final_turns_left }));
    root.appendChild(el("div", { class: "status-line" }, status.join(" · ")));

    // The Central File Row, oldest first: face-down cards show their back unless this seat knows
    // them (then a "face down" badge says the others do not see it).
    const row = el("div", { class: "uc-row", id: "uc-row" });
    (obs.row || []).forEach((entry, i) => {
      const card = entry.face_up ? ucCard(entry.card) : (entry.card ? ucCard(entry.card, { down: true }) : ucCard(null));
      row.appendChild(el("div", { class: "row-slot " + (entry.face_up ? "up" : "down"), "data-index": i }, card));
    });
    root.appendChild(section(T("row"), (obs.row || []).length ? row : el("p", { class: "muted" }, T("row_empty"))));

    // Seats: hand sizes as card backs, what this seat knows of their role and cards.
    const seats = el("div", { class: "uc-seats" });
    for (let s = 0; s < players; s++) {
      const marks = [];
      if (s === obs.active) marks.push(el("span", { class: "mark active" }, T("active")));
      if (s === obs.current_player) marks.push(el("span", { class: "mark turn" }, T("deciding")));
      if (s === obs.eliminated) marks.push(el("span", { class: "mark out" }, T("eliminated")));
      const candidates = (obs.roles || [])[s] || [];
      let roleLine = null;
      if (s === ctx.seat && obs.role) roleLine = ucRole(obs.role);
      else if (candidates.length === 1) roleLine = [T("role_known", { role: "" }), ucRole(candidates[0])];
      else if (candidates.length > 1 && candidates.length <= 3) roleLine = T("role_candidates", { roles: candidates.join(", ") });
      const known = (obs.known_hands || {})[String(s)] || [];
      const backs = el("div", { class: "hand-backs" });
      for (let i = 0; i < (obs.hand_sizes || [])[s]; i++) backs.appendChild(ucCard(null, { small: true }));
      seats.appendChild(el("div", { class: "uc-seat" + (s === ctx.seat ? " me" : "") + (s === obs.current_player ? " current" : ""), "data-seat": s },
        el("div", { class: "seat-name" }, seatName(ctx, s), " ", marks),
        el("div", { class: "seat-hand" }, backs, el("span", { class: "count" }, T("cards", { n: (obs.hand_sizes || [])[s] }))),
        roleLine ? el("div", { class: "seat-role" }, roleLine) : null,
        known.length ? el("div", { class: "seat-known" }, T("you_know", { cards: "" }), known.map((c) => ucCard(c, { small: true }))) : null));
    }
    root.appendChild(seats);

    const reserve = (obs.roles || []).slice(players);
    const reserveBits = [];
    reserve.forEach((candidates, r) => {
      if (candidates.length <= 3) reserveBits.push(el("div", {}, T("reserve", { n: r }), ": ", candidates.map(ucRole)));
    });
    if (reserveBits.length) root.appendChild(el("div", { class: "uc-reserve" }, reserveBits));

    if (obs.identity_confirmation) {
      const ic = obs.identity_confirmation;
      const fmt = (list) => list.map((s) => t("board.seat", { n: s })).join(", ") || t("board.none");
      root.appendChild(el("p", { class: "uc-identity" }, T("identity", { eyes: fmt(ic.eye), thumbs: fmt(ic.thumb) })));
    }
    if (obs.pending) {
      const p = obs.pending;
      const bits = [T("pending", { passer: p.passer, receiver: p.receiver, card: p.card || T("pending_face_down") })];
      if (p.effect) bits.push(T("resolving", { effect: p.effect }));
      root.appendChild(el("p", { class: "uc-pending" }, bits.join(" · "), p.card ? ucCard(p.card, { small: true }) : null));
    }

    // My role card and hand.
    if (ctx.seat !== null && ctx.seat !== undefined && obs.hand) {
      const mine = el("div", { class: "uc-mine", id: "my-hand" });
      if (obs.role) mine.appendChild(el("div", { class: "my-role" }, el("h4", {}, T("role")), el("div", { class: "role-card", id: "my-role" }, ucRole(obs.role))));
      const hand = el("div", { class: "hand" }, obs.hand.map((c) => ucCard(c)));
      mine.appendChild(el("div", { class: "my-cards" }, el("h4", {}, T("hand")), obs.hand.length ? hand : el("p", { class: "muted" }, T("hand_empty"))));
      root.appendChild(mine);
    }
    if ((obs.discard || []).length) root.appendChild(section(T("used"), el("div", { class: "pile" }, obs.discard.map((c) => ucCard(c, { small: true })))));
    if ((obs.removed || []).length) root.appendChild(section(T("removed"), el("div", { class: "pile" }, obs.removed.map((c) => ucCard(c, { small: true })))));
    for (const d of obs.declarations || []) {
      root.appendChild(el("p", { class: "uc-declaration" }, T("declaration", { seat: d.seat, red: d.red_informer, blue: d.blue_informer || "—" })));
    }
    if (obs.phase === "over") {
      const reveal = el("div", { class: "reveal", id: "reveal" });
      reveal.appendChild(el("h3", {}, T("final_roles")));
      for (let s = 0; s < players; s++) {
        reveal.appendChild(el("div", { class: "final-role", "data-seat": s }, seatName(ctx, s), ": ", ucRole(((obs.roles || [])[s] || ["?"])[0])));
      }
      reveal.appendChild(el("p", { class: "winner" }, obs.winner_faction ? T("winner", { faction: obs.winner_faction }) : T("no_winner")));
      root.appendChild(reveal);
    }
    return root;
  }

  return draw;
});
