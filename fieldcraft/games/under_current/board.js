// Under Current's board: the Central File Row as numbered slots, every seat (hand size as card
// backs, what this seat knows of its role and cards), the reserve role cards as one slot each,
// the card being passed, this seat's role and hand, the used and removed piles, the reveal.
// Every choice is played on the thing it acts on (kit.playable): a hand card to pass, give or
// drop; the passed card to file or use (or the row's empty slot to file it); a seat to target,
// retire or name; a reserve slot to flip with or name; a row slot to fetch or burn. The frame's
// buttons below stay as a fallback. Every word comes from this game's catalogue (T / ctx.text).
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, seatName, choicesOf, playable, recent } = kit;

  const COLOURS = { Blue: "blue", Red: "red", Green: "green", Yellow: "yellow" };

  // "Blue/SNATCH(6+)" (or with "#2" for a repeated name) → its colour, effect and count mark.
  function parseCard(name) {
    const m = /^(\w+)\/(\w+)(?:\((\d+\+)\))?/.exec(name || "");
    return m ? { colour: m[1], effect: m[2], mark: m[3] || "" } : { colour: "", effect: name || "", mark: "" };
  }

  function cardName(ctx, name) { return ctx.text.name("card", name); }

  // A card: a face (colour symbol and word, effect, count mark) or, unseen, a back.
  function ucCard(ctx, name, opts) {
    const o = opts || {};
    const size = o.small ? " small" : o.tiny ? " tiny" : "";
    if (!name) {
      return el("div", { class: "card back" + size, title: T("ui.face_down"), "aria-label": T("ui.face_down") },
        o.tiny ? null : el("span", { class: "back-mark" }, "✦"));
    }
    const c = parseCard(name);
    const cls = COLOURS[c.colour] || "plain";
    const label = cardName(ctx, name) + (o.down ? " (" + T("ui.known_down") + ")" : "");
    return el("div", { class: "card c-" + cls + size + (o.down ? " known-down" : ""), "data-card": name,
      "data-motion": o.small || o.tiny ? null : "card:" + name, "data-motion-from": o.from || null,
      title: label + (ctx.text.has("help." + c.effect) ? " — " + ctx.text.name("help", c.effect) : ""), "aria-label": label },
      el("span", { class: "colour" }, el("span", { class: "sym", "aria-hidden": "true" }, ctx.text.name("symbol", c.colour)), " ", ctx.text.name("faction", c.colour)),
      el("span", { class: "effect" }, ctx.text.name("effect", c.effect)),
      c.mark ? el("span", { class: "count-mark" }, c.mark) : null,
      o.down ? el("span", { class: "badge" }, T("ui.face_down")) : null);
  }

  function factionOf(role) { return (role || "").split(" ")[0]; }

  function ucRole(ctx, name) {
    const f = factionOf(name);
    return el("span", { class: "role r-" + (COLOURS[f] || "plain") },
      el("span", { class: "sym", "aria-hidden": "true" }, ctx.text.name("symbol", f)), " ", ctx.text.name("role", name));
  }

  // What this seat knows of a role position: the card, a few candidates, or nothing.
  function roleHint(ctx, candidates) {
    if (candidates.length === 1) return el("div", { class: "seat-role" }, T("ui.role_is"), " ", ucRole(ctx, candidates[0]));
    const distinct = [...new Set(candidates.map((r) => ctx.text.name("role", r)))];
    if (distinct.length === 1) return el("div", { class: "seat-role" }, T("ui.role_is"), " ", ucRole(ctx, candidates[0]));
    if (candidates.length <= 3) {
      const parts = [];
      candidates.forEach((r, i) => { if (i) parts.push(T("ui.or")); parts.push(ucRole(ctx, r)); });
      return el("div", { class: "seat-role candidates" }, T("ui.role_could"), " ", parts);
    }
    return null;
  }


  // A thing whose choices open a menu sits in a holder, so that the menu (placed right after
  // it) opens just below it rather than at the corner of the grid or row around it.
  function menuHolder(node) {
    return el("div", { class: "play-holder" }, node);
  }

  // While a Green player names the Informers, each place they may name shows the number its
  // choice reads ("place 6" is the first reserve card at five seats).
  function placeBadge(node, names) {
    if (names.length) node.appendChild(el("span", { class: "place-badge" }, T("ui.place", { n: names[0].args.position + 1 })));
  }

  function drawRow(obs, ctx) {
    const row = el("div", { class: "uc-row", id: "uc-row" });
    const entries = obs.row || [];
    entries.forEach((entry, i) => {
      const card = entry.face_up ? ucCard(ctx, entry.card) : entry.card ? ucCard(ctx, entry.card, { down: true }) : ucCard(ctx, null);
      const slot = el("div", { class: "row-slot " + (entry.face_up ? "up" : "down"), "data-index": i },
        el("div", { class: "slot-no" }, T("ui.slot", { n: i + 1 })), card);
      if (recent(ctx, { into: i }) || recent(ctx, { up_slot: i })) slot.classList.add("recent");
      const name = T("ui.slot", { n: i + 1 }) + " — " + (entry.card ? cardName(ctx, entry.card) : T("ui.face_down"));
      playable(slot, choicesOf(ctx, "row", { index: i }), ctx, name);
      row.appendChild(slot);
    });
    // Where a passed card would go if filed: an empty slot at the row's end.
    const file = choicesOf(ctx, "file");
    if (file.length) {
      const slot = el("div", { class: "row-slot next", "data-index": entries.length },
        el("div", { class: "slot-no" }, T("ui.slot", { n: entries.length + 1 })), el("div", { class: "card empty" }, T("ui.play_here")));
      playable(slot, file, ctx, T("ui.slot", { n: entries.length + 1 }));
      row.appendChild(slot);
    }
    if (!row.childNodes.length) return el("p", { class: "muted" }, T("ui.row_empty"));
    return row;
  }

  function drawSeats(obs, ctx) {
    const seats = el("div", { class: "uc-seats" });
    for (let s = 0; s < obs.players; s++) {
      const marks = [];
      if (s === obs.active) marks.push(el("span", { class: "mark active" }, "▶ " + T(s === ctx.seat ? "ui.turn_mark_you" : "ui.turn_mark")));
      if (s === obs.current_player && s !== obs.active) marks.push(el("span", { class: "mark deciding" }, "… " + T("ui.deciding")));
      if (s === obs.eliminated) marks.push(el("span", { class: "mark out" }, "✖ " + T("ui.eliminated")));
      const size = (obs.hand_sizes || [])[s] || 0;
      const backs = el("div", { class: "hand-backs", "aria-hidden": "true" });
      for (let i = 0; i < size; i++) backs.appendChild(ucCard(ctx, null, { tiny: true }));
      const candidates = (obs.roles || [])[s] || [];
      const known = (obs.known_hands || {})[String(s)] || [];
      let roleLine = null;
      if (s === ctx.seat && obs.role) roleLine = el("div", { class: "seat-role" }, T("ui.role_is"), " ", ucRole(ctx, obs.role));
      else roleLine = roleHint(ctx, candidates);
      const seat = el("div", { class: "uc-seat" + (s === ctx.seat ? " me" : "") + (s === obs.current_player ? " current" : ""), "data-seat": s,
        "data-motion": "seat:" + s },
        el("div", { class: "seat-name" }, seatName(ctx, s), " ", marks),
        el("div", { class: "seat-hand" }, backs, el("span", { class: "count" }, T("ui.hand_size", { n: size }))),
        roleLine,
        known.length && s !== ctx.seat ? el("div", { class: "seat-known" }, el("span", {}, T("ui.you_know")), known.map((c) => ucCard(ctx, c, { small: true }))) : null);
      if (recent(ctx, { seat: s }) || recent(ctx, { target: s }) || recent(ctx, { named: s })) seat.classList.add("recent");
      const list = [...choicesOf(ctx, "target", { seat: s }), ...choicesOf(ctx, "retire", { seat: s }), ...choicesOf(ctx, "name", { seat: s })];
      placeBadge(seat, choicesOf(ctx, "name", { seat: s }));
      playable(seat, list, ctx, seatName(ctx, s));
      receiver(seat, s, ctx);
      seats.appendChild(menuHolder(seat));
    }
    return seats;
  }

  function drawReserve(obs, ctx) {
    const reserve = (obs.roles || []).slice(obs.players);
    if (!reserve.length) return null;
    const box = el("div", { class: "uc-reserve" });
    reserve.forEach((candidates, r) => {
      const name = T("ui.reserve_slot", { n: r + 1 });
      const hint = roleHint(ctx, candidates);
      const slot = el("div", { class: "reserve-slot", "data-reserve": r },
        el("div", { class: "slot-no" }, name),
        el("div", { class: "role-back", "aria-hidden": "true" }, "✦"),
        hint || el("div", { class: "seat-role muted" }, T("ui.unknown")));
      if (recent(ctx, { reserve: r })) slot.classList.add("recent");
      placeBadge(slot, choicesOf(ctx, "name", { reserve: r }));
      playable(slot, [...choicesOf(ctx, "reserve", { reserve: r }), ...choicesOf(ctx, "name", { reserve: r })], ctx, name);
      box.appendChild(menuHolder(slot));
    });
    return section(T("ui.reserve"), box);
  }

  function drawPending(obs, ctx) {
    const p = obs.pending;
    if (!p) return null;
    const card = p.card ? ucCard(ctx, p.card, { from: "seat:" + p.passer })
      : el("div", { class: "card back", "data-motion": "pending", "data-motion-from": "seat:" + p.passer }, el("span", { class: "back-mark" }, "✦"));
    const holder = el("div", { class: "pending-card" }, card);
    playable(holder, [...choicesOf(ctx, "use"), ...choicesOf(ctx, "file")], ctx, p.card ? cardName(ctx, p.card) : T("ui.pending_card"));
    const bits = [el("span", {}, T(p.passer === ctx.seat ? "ui.pending_you" : "ui.pending", { passer: ctx.text.seat(p.passer), receiver: ctx.text.seat(p.receiver),
      card: p.card ? cardName(ctx, p.card) : T("ui.pending_card") }))];
    if (p.effect) bits.push(el("span", { class: "effect-now", title: ctx.text.name("help", p.effect) }, T("ui.effect_now", { effect: ctx.text.name("effect", p.effect) })));
    if (p.your_swap_card) bits.push(el("span", {}, T("ui.your_swap", { card: cardName(ctx, p.your_swap_card) })));
    return el("div", { class: "uc-pending" }, holder, el("div", { class: "pending-text" }, bits));
  }

  function drawMine(obs, ctx) {
    if (ctx.seat === null || ctx.seat === undefined || !obs.hand) return null;
    const mine = el("div", { class: "uc-mine", id: "my-hand" });
    if (obs.role) {
      mine.appendChild(el("div", { class: "my-role" }, el("h4", {}, T("ui.role")),
        el("div", { class: "role-card r-" + (COLOURS[factionOf(obs.role)] || "plain"), id: "my-role" }, ucRole(ctx, obs.role))));
    }
    const passing = choicesOf(ctx, "pass");
    if (!passing.some((c) => c.args.card === picked)) picked = null;
    const hand = el("div", { class: "hand" }, obs.hand.map((c) => {
      const node = ucCard(ctx, c);
      const passes = choicesOf(ctx, "pass", { card: c });
      const list = [...choicesOf(ctx, "give", { card: c }), ...choicesOf(ctx, "drop", { card: c })];
      if (passes.length && !list.length) return menuHolder(passable(node, c, passes, ctx));
      return menuHolder(playable(node, [...passes, ...list], ctx, cardName(ctx, c)));
    }));
    const hint = passing.length ? el("p", { class: "hint pass-hint", id: "pass-hint", "aria-live": "polite" },
      picked ? T("ui.pass_to", { card: cardName(ctx, picked) }) : T("ui.pass_pick")) : null;
    mine.appendChild(el("div", { class: "my-cards" }, el("h4", {}, T("ui.hand")), hint,
      obs.hand.length ? hand : el("p", { class: "muted" }, T("ui.hand_empty"))));
    return mine;
  }

  // Passing is two taps (issue 34): the card, then the seat it goes to. The card is picked (and
  // stays picked across redraws while it may still be passed); the seats that may receive it
  // are marked, and a tap on one sends the pass. Dragging the card onto a seat does the same
  // (drag, below). The choices panel keeps every pass as a button, for the keyboard and screen
  // readers too.
  let picked = null;

  function pick(card, root) {
    picked = picked === card ? null : card;
    const board = root.closest(".uc") || document;
    board.classList.toggle("picking", !!picked);
    board.querySelectorAll(".hand .card.passable").forEach((n) => {
      const on = n.dataset.card === picked;
      n.classList.toggle("selected", on);
      n.setAttribute("aria-pressed", String(on));
    });
    const hint = board.querySelector("#pass-hint");
    if (hint) hint.textContent = picked ? T("ui.pass_to", { card: Boards.textFor(Boards.reader).name("card", picked) }) : T("ui.pass_pick");
  }

  function passable(node, card, passes, ctx) {
    node.classList.add("playable", "passable");
    if (card === picked) node.classList.add("selected");
    node.setAttribute("role", "button");
    node.setAttribute("tabindex", "0");
    node.setAttribute("aria-pressed", String(card === picked));
    node.setAttribute("aria-label", T("ui.pass_card", { card: cardName(ctx, card) }));
    node.dataset.actions = passes.map((c) => c.action).join(",");
    const dragged = drag(node, card, ctx);
    const go = (event) => {
      event.preventDefault();
      event.stopPropagation();
      if (dragged()) return; // the click that ends a drag is not also a tap
      if (ctx.disabled) { if (ctx.refuse) ctx.refuse(); return; }
      pick(card, node);
    };
    node.addEventListener("click", go);
    node.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") go(event); });
    return node;
  }

  // Dragging a card onto a seat, by Pointer Events: one way for a mouse, a pen and a finger (the
  // HTML drag and drop events never fire for touch). The card follows the pointer once it has
  // moved a few pixels (less is a tap), the seat under it that may receive the card is marked,
  // and letting go there sends the pass; anywhere else, or a cancelled pointer (the browser took
  // the gesture), puts the card back and sends nothing. A finger must first hold the card still
  // for a moment (HOLD_DRAG_MS): a swipe that merely starts on a card scrolls the page, as on
  // any phone list, and a held card then drags without scrolling (its touchmove is cancelled).
  // Returns whether the last press was a drag, for the click that follows it.
  const DRAG_PX = 8;
  const HOLD_DRAG_MS = 200;

  function drag(node, card, ctx) {
    let start = null; // {x, y, id, moved} while a pointer is down on the card
    let last = false;
    const seatAt = (x, y) => {
      const hit = document.elementsFromPoint(x, y).find((n) => !node.contains(n));
      return hit ? hit.closest(".uc-seat.receiver") : null;
    };
    const mark = (seat) => document.querySelectorAll(".uc-seat.drop-over").forEach((n) => n.classList.toggle("drop-over", n === seat));
    const end = (event, drop) => {
      if (!start || event.pointerId !== start.id) return;
      const moved = start.moved;
      clearTimeout(start.timer);
      start = null;
      last = moved;
      node.classList.remove("dragging", "lifted");
      node.style.transform = "";
      mark(null);
      if (!moved) return;
      const seat = drop ? seatAt(event.clientX, event.clientY) : null;
      const choice = seat && choicesOf(ctx, "pass", { card, to: Number(seat.dataset.seat) })[0];
      if (!choice) { if (picked === card) pick(card, node); return; } // put back
      if (ctx.disabled) { if (ctx.refuse) ctx.refuse(); return; }
      picked = null;
      ctx.act(choice.action);
    };
    node.addEventListener("pointerdown", (event) => {
      if (event.button !== 0 || ctx.disabled) return;
      const held = { x: event.clientX, y: event.clientY, id: event.pointerId, moved: false,
        armed: event.pointerType !== "touch", timer: null };
      start = held;
      last = false;
      if (!held.armed) {
        held.timer = setTimeout(() => {
          if (start === held) { held.armed = true; node.classList.add("lifted"); }
        }, HOLD_DRAG_MS);
      }
      // A pointer the browser does not know as active (a synthetic event: an assistive tool,
      // a script) cannot be captured; the drag then simply follows it without capture.
      try { node.setPointerCapture(event.pointerId); } catch (_) { /* not an active pointer */ }
    });
    node.addEventListener("pointermove", (event) => {
      if (!start || event.pointerId !== start.id) return;
      const dx = event.clientX - start.x, dy = event.clientY - start.y;
      if (!start.moved && Math.hypot(dx, dy) < DRAG_PX) return;
      if (!start.armed) { // a finger moved before holding: a swipe, the page scrolls
        clearTimeout(start.timer);
        start = null;
        return;
      }
      if (!start.moved) {
        start.moved = true;
        if (picked !== card) pick(card, node); // the seats that may receive it light up
        node.classList.add("dragging");
        if (typeof Info !== "undefined") Info.hide();
      }
      node.style.transform = `translate(${dx}px, ${dy}px)`;
      mark(seatAt(event.clientX, event.clientY));
    });
    node.addEventListener("pointerup", (event) => end(event, true));
    node.addEventListener("pointercancel", (event) => end(event, false));
    // a held card's finger drags it, not the page
    node.addEventListener("touchmove", (event) => { if (start && start.armed) event.preventDefault(); }, { passive: false });
    return () => { const was = last; last = false; return was; };
  }

  // A seat that may be passed a card: marked while a card is picked; a tap sends it (a drop: drag).
  function receiver(node, seat, ctx) {
    const passes = choicesOf(ctx, "pass", { to: seat });
    if (!passes.length) return;
    node.classList.add("receiver");
    node.dataset.receive = passes.map((c) => c.action).join(",");
    if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "0");
    node.setAttribute("aria-label", T("ui.pass_to_seat", { who: seatName(ctx, seat) }));
    const send = (event) => {
      if (!picked) return;
      const choice = passes.find((c) => c.args.card === picked);
      if (!choice) return;
      event.preventDefault();
      event.stopPropagation();
      if (ctx.disabled) { if (ctx.refuse) ctx.refuse(); return; }
      picked = null;
      ctx.act(choice.action);
    };
    node.addEventListener("click", send);
    node.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") send(event); });
  }

  function draw(obs, given) {
    // A replay passes no renderer; the reader then is the seat whose view it is.
    const ctx = given.text ? given : Object.assign({}, given, { text: Boards.textFor({ viewer: given.seat, names: null }) });
    const root = el("div", { class: "uc" + (picked && choicesOf(ctx, "pass", { card: picked }).length ? " picking" : "") });
    const status = [T("ui.turn", { n: (obs.turn || 0) + 1 }), T("ui.deck", { n: obs.deck_count })];
    if (obs.final_round) status.push(obs.final_turns_left === 1 ? T("ui.final_round_last") : T("ui.final_round", { n: obs.final_turns_left }));
    root.appendChild(el("div", { class: "status-line" }, status.join(" · ")));

    const rowBox = section(T("row"), el("p", { class: "hint" }, T("ui.row_hint")), drawRow(obs, ctx));
    rowBox.classList.add("uc-row-section");
    root.appendChild(rowBox);
    const pending = drawPending(obs, ctx);
    if (pending) root.appendChild(pending);
    const mine = drawMine(obs, ctx);
    if (mine) root.appendChild(mine);
    root.appendChild(drawSeats(obs, ctx));
    const reserve = drawReserve(obs, ctx);
    if (reserve) root.appendChild(reserve);

    if (obs.identity_confirmation) {
      const ic = obs.identity_confirmation;
      const fmt = (list) => list.map((s) => ctx.text.seat(s)).join(ctx.text.has("_sep") ? ctx.text.key("_sep") : ", ") || T("ui.none");
      root.appendChild(el("p", { class: "uc-identity" }, "◉ ", T("ui.identity", { eyes: fmt(ic.eye), thumbs: fmt(ic.thumb) })));
    }
    const piles = el("div", { class: "uc-piles" });
    if ((obs.discard || []).length) piles.appendChild(section(T("ui.used"), el("div", { class: "pile" }, obs.discard.map((c) => ucCard(ctx, c, { small: true })))));
    if ((obs.removed || []).length) piles.appendChild(section(T("ui.removed"), el("div", { class: "pile" }, obs.removed.map((c) => ucCard(ctx, c, { small: true })))));
    if (piles.childNodes.length) root.appendChild(piles);
    for (const d of obs.declarations || []) {
      root.appendChild(el("p", { class: "uc-declaration" }, T("ui.declaration", { seat: ctx.text.seat(d.seat),
        red: placeName(obs, ctx, d.red_informer), blue: d.blue_informer ? placeName(obs, ctx, d.blue_informer) : "—" })));
    }
    if (obs.phase === "over") {
      const reveal = el("div", { class: "reveal", id: "reveal" });
      reveal.appendChild(el("h3", {}, T("ui.final_roles")));
      for (let s = 0; s < obs.players; s++) {
        reveal.appendChild(el("div", { class: "final-role", "data-seat": s, "data-motion": "final:" + s, "data-motion-in": "turn" },
          seatName(ctx, s), ": ", ucRole(ctx, ((obs.roles || [])[s] || ["?"])[0])));
      }
      root.appendChild(reveal);
    }
    return root;
  }

  // The view names a declared place "seat 2" or "reserve 0" (0-based); people read it from 1.
  function placeName(obs, ctx, where) {
    const m = /^(seat|reserve) (\d+)$/.exec(where || "");
    if (!m) return where;
    const n = Number(m[2]);
    return m[1] === "seat" ? ctx.text.seat(n) : T("ui.reserve_slot", { n: n + 1 });
  }

  // The seat list's line for a seat: the role this seat's view shows for it, if it shows one
  // (its own card, or a single candidate after Identity Confirmation or a peek); out, if out.
  draw.seatInfo = (obs, s, ctx) => {
    const facts = [];
    const mine = s === ctx.seat && obs.role ? obs.role : null;
    const candidates = (obs.roles || [])[s] || [];
    const role = mine || (candidates.length === 1 ? candidates[0] : null);
    if (role) {
      const f = factionOf(role);
      facts.push(el("span", { class: "uc-seat-role r-" + (COLOURS[f] || "plain") },
        el("span", { "aria-hidden": "true" }, ctx.text.name("symbol", f)), " ", ctx.text.name("role", role)));
    }
    if (s === obs.eliminated) facts.push(el("span", {}, "✖ " + T("ui.eliminated")));
    return { score: null, facts };
  };

  return draw;
});
