// Spy Tracker's board: every seat's Sources, points and hidden hand; the standing bid with CALL
// and SPOT on it; a bid maker (a row of the legal counts, then the nine traits); this round's
// bids; this seat's hand; and the hands laid open at the last challenge, the cards that counted
// marked. Every choice is played on the thing it acts on (kit.playable); the frame's buttons below
// stay as a fallback. All words come from the game's catalogue (T, ctx.text).
// Registered with the shared Boards (server/static/boards.js).
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { seatName } = kit;
  const ROLES = ["Face", "Hacker", "Muscle"];
  const FACTIONS = ["Agency", "Bureau", "Command"];
  const CITIES = ["New York", "London", "Moscow"];
  // A symbol beside each faction's colour, so that no one needs the colour to tell them apart.
  const MARK = { Agency: "◆", Bureau: "▲", Command: "●" };
  let picked = null; // the count picked in the bid maker, kept for one version
  let pickedAt = null;
  let autoAt = null; // the version whose single "next" the board has played

  const version = () => document.body.dataset.version || "";
  // A name from one of the catalogue's namespaces (trait.Moscow, card.Mercenary), the value itself
  // if the catalogue has none.
  const named = (ns, value) => Boards.textFor(Boards.reader).name(ns, value);
  const traitName = (a) => named("trait", a);

  function traitLabel(a) {
    return el("span", { class: "trait" + (MARK[a] ? " f-" + a.toLowerCase() : "") },
      MARK[a] ? el("span", { class: "st-mark", "aria-hidden": "true" }, MARK[a] + " ") : null, traitName(a));
  }

  function bidLabel(count, attribute) {
    return el("span", { class: "st-bid-text" }, el("span", { class: "n" }, String(count)), " × ", traitLabel(attribute));
  }

  // What a card adds to the true count of `attribute`: 1 if it shows it, +1 a Mercenary, -1 a Traitor.
  function counts(name, attribute) {
    if (/^Mercenary/.test(name)) return 1;
    if (/^Traitor/.test(name)) return -1;
    return name.split("/").includes(attribute) ? 1 : 0;
  }

  function stCard(name, opts) {
    const o = opts || {};
    const mark = o.attribute ? counts(name, o.attribute) : 0;
    const extra = (o.small ? " small" : "") + (o.attribute ? (mark ? " counted" : " uncounted") : "");
    const badge = o.attribute && mark ? el("span", { class: "badge", "aria-hidden": "true" }, mark > 0 ? (/\//.test(name) ? "✓" : "+1") : "−1") : null;
    const parts = (name || "").split("/");
    if (parts.length === 3) {
      const [faction, role, city] = parts;
      const label = named("card", name) + (o.attribute && mark ? " · " + T("counted") : "");
      return el("div", { class: "st-card f-" + faction.toLowerCase() + extra, "data-card": name, title: label, "aria-label": label, role: "img" },
        el("span", { class: "faction" }, el("span", { class: "st-mark", "aria-hidden": "true" }, MARK[faction] + " "), traitName(faction)),
        el("span", { class: "role" }, traitName(role)), el("span", { class: "city" }, traitName(city)), badge);
    }
    const merc = /^Mercenary/.test(name);
    const kind = merc ? "Mercenary" : "Traitor";
    const label = T(merc ? "counted_plus" : "counted_minus");
    return el("div", { class: "st-card " + (merc ? "s-merc" : "s-traitor") + extra, "data-card": name, title: label, "aria-label": label, role: "img" },
      el("span", { class: "big", "aria-hidden": "true" }, merc ? "★" : "✖"), el("span", { class: "role" }, named("card", kind)),
      el("span", { class: "city" }, merc ? "+1" : "−1"), badge);
  }

  function backs(n) {
    const box = el("div", { class: "st-backs", role: "img", "aria-label": T("hidden_hand", { n }), title: T("hidden_hand", { n }) });
    for (let i = 0; i < n; i++) box.appendChild(el("span", { class: "st-back", "aria-hidden": "true" }, "?"));
    return box;
  }

  function sourceDots(active, start) {
    const total = Math.max(start, active);
    const width = total * 16 + 4;
    const label = T("sources_of", { n: active, start });
    const node = svg("svg", { class: "sources", width, height: 18, viewBox: `0 0 ${width} 18`, role: "img", "aria-label": label });
    node.appendChild(svg("title", {}, label));
    for (let i = 0; i < total; i++) {
      node.appendChild(i < active ? svg("circle", { cx: 10 + i * 16, cy: 9, r: 6, class: "on" })
        : svg("path", { d: `M${5 + i * 16} 4 L${15 + i * 16} 14 M${15 + i * 16} 4 L${5 + i * 16} 14`, class: "off" }));
    }
    return node;
  }

  // This seat's own cards, face up inside its panel (the others' panels show backs).
  function hand(obs) {
    return el("div", { class: "st-hand", id: "my-hand", role: "group", "aria-label": T("hand") },
      el("div", { class: "lbl" }, T("hand")), el("div", { class: "hand" }, obs.hand_cards.map((c) => stCard(c))));
  }

  function seats(obs, ctx, nexts) {
    const box = el("div", { class: "st-seats", id: "st-seats" });
    (obs.sources || []).forEach((active, s) => {
      const points = (obs.points || [])[s] || 0;
      const goal = obs.points_to_win || 0;
      const cls = ["st-seat"];
      if (s === obs.to_act) cls.push("current");
      if (s === ctx.seat) cls.push("me");
      if (!active) cls.push("out");
      const r = obs.last_reveal; // the loser of the last challenge, if it happened since your move
      if (r && r.loser === s && kit.recent(ctx, { loser: s, true: r.true_count })) cls.push("recent");
      const panel = el("div", { class: cls.join(" "), "data-seat": s },
        el("div", { class: "who" }, s === obs.to_act ? el("span", { class: "turn", title: T("to_act") }, "▶ ") : null,
          seatName(ctx, s), active ? null : el("span", { class: "out-mark" }, " ✖ " + T("eliminated"))),
        el("div", { class: "line" }, el("span", { class: "lbl" }, T("sources")), sourceDots(active, obs.start_sources)),
        el("div", { class: "line" }, el("span", { class: "lbl" }, T("points")),
          el("span", { class: "stars", role: "img", "aria-label": T("points_of", { n: points }), title: T("points_of", { n: points }) },
            "★".repeat(Math.min(points, goal)), el("span", { class: "dim" }, "☆".repeat(Math.max(goal - points, 0))))),
        s === ctx.seat && (obs.hand_cards || []).length ? hand(obs) : backs((obs.hand_sizes || [])[s] || 0));
      const mine = nexts.filter((c) => c.args.seat === s);
      if (mine.length && nexts.length > 1) kit.playable(panel, mine, ctx, seatName(ctx, s));
      box.appendChild(panel);
    });
    return box;
  }

  function currentBid(obs, ctx) {
    const bid = obs.current_bid;
    const box = el("div", { class: "st-bid", id: "current-bid" }, el("h4", {}, T("current_bid")));
    if (!bid) {
      box.appendChild(el("p", { class: "muted" }, obs.phase === "over" ? T("game_over")
        : obs.opener !== null && obs.opener !== undefined ? T("no_bid", { opener: obs.opener }) : "—"));
      return box;
    }
    const big = el("div", { class: "bid-big" + (kit.recent(ctx, { count: bid.count, trait: bid.attribute }) ? " recent" : ""),
      "data-motion": "bid:" + bid.seat + ":" + bid.count + ":" + bid.attribute, "data-motion-in": "appear" },
      bidLabel(bid.count, bid.attribute), el("small", {}, " — " + T("bid_by", { seat: bid.seat })));
    box.appendChild(big);
    const calls = kit.choicesOf(ctx, "call");
    const spots = kit.choicesOf(ctx, "spot");
    if (calls.length || spots.length) {
      const row = el("div", { class: "st-challenges" }, el("span", { class: "muted" }, T("challenge")));
      for (const [list, cls, hint] of [[calls, "call", "call_hint"], [spots, "spot", "spot_hint"]]) {
        if (!list.length) continue;
        const b = el("button", { type: "button", class: "st-challenge " + cls, "data-kind": cls },
          el("span", { class: "word" }, ctx.text.choice(list[0])), el("small", {}, T(hint, { count: bid.count })));
        row.appendChild(kit.playable(b, list, ctx, T("current_bid") + " " + bid.count + " × " + traitName(bid.attribute)));
      }
      box.appendChild(row);
    }
    return box;
  }

  function bidMaker(ctx) {
    const list = (ctx.choices || []).filter((c) => c.kind === "bid" || c.kind === "raise");
    if (!list.length) return null;
    const legal = [...new Set(list.map((c) => c.args.count))].sort((a, b) => a - b);
    if (pickedAt !== version() || !legal.includes(picked)) { picked = legal[0]; pickedAt = version(); }
    const box = el("div", { class: "st-maker", id: "bid-maker" }, el("h4", {}, T("make_bid")));
    const countRow = el("div", { class: "st-counts", role: "group", "aria-label": T("count") }, el("span", { class: "lbl" }, T("count")));
    const traits = el("div", { class: "st-traits" });
    const drawTraits = () => {
      clear(traits);
      for (const [title, group] of [["roles", ROLES], ["factions", FACTIONS], ["cities", CITIES]]) {
        const row = el("div", { class: "st-trait-group", role: "group", "aria-label": T(title) }, el("span", { class: "lbl" }, T(title)));
        for (const a of group) {
          const choice = list.find((c) => c.args.count === picked && c.args.attribute === a);
          const b = el("button", { type: "button", class: "st-trait" + (MARK[a] ? " f-" + a.toLowerCase() : ""), "data-trait": a, disabled: !choice },
            el("span", { class: "n" }, String(picked)), " × ", traitLabel(a));
          row.appendChild(choice ? kit.playable(b, [choice], ctx) : b);
        }
        traits.appendChild(row);
      }
      countRow.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.count) === picked)));
    };
    for (const n of legal) {
      countRow.appendChild(el("button", { type: "button", class: "st-count", "data-count": n, "aria-label": T("count_n", { n }),
        onclick: () => { picked = n; drawTraits(); } }, String(n)));
    }
    box.appendChild(countRow);
    box.appendChild(traits);
    drawTraits();
    return box;
  }

  function bidList(obs, ctx) {
    if (!(obs.bids || []).length) return null;
    return el("div", { class: "st-bids" }, el("h4", {}, T("bids")), el("ol", { class: "bids" }, obs.bids.map((b) => {
      const recent = kit.recent(ctx, { seat: b.seat, count: b.count, trait: b.attribute });
      return el("li", { class: recent ? "recent" : "", "data-seat": b.seat, "data-motion": "bids:" + b.seat + ":" + b.count + ":" + b.attribute,
        "data-motion-in": "appear" }, seatName(ctx, b.seat), ": ", bidLabel(b.count, b.attribute),
        b.action === "raise" ? el("small", { class: "muted" }, " (" + T("raise_mark") + ")") : null);
    })));
  }

  function reveal(obs, ctx) {
    const r = obs.last_reveal;
    if (!r) return null;
    const box = el("div", { class: "st-reveal" + (kit.recent(ctx, { loser: r.loser, true: r.true_count }) ? " fresh" : ""), id: "last-reveal",
      "data-motion": "reveal:" + r.round, "data-motion-in": "turn" },
      el("h4", {}, T("last_reveal")),
      el("p", {}, T(r.challenge === "spot" ? (r.challenger === ctx.seat ? "reveal_spot_you" : "reveal_spot")
        : (r.challenger === ctx.seat ? "reveal_call_you" : "reveal_call"), { challenger: r.challenger, bidder: r.bidder, count: r.count, trait: r.attribute })),
      el("p", { class: "st-truth", "data-true": r.true_count, "data-bid": r.count },
        el("span", { class: "true-n" }, String(r.true_count)), " ", T("true_vs_bid", { true: r.true_count, count: r.count })));
    (r.cards || []).forEach((cards, s) => {
      if (!cards.length) return;
      const sum = cards.reduce((n, c) => n + counts(c, r.attribute), 0);
      box.appendChild(el("div", { class: "reveal-seat", "data-seat": s }, el("span", { class: "who" }, seatName(ctx, s), " ",
        el("span", { class: "sum" + (sum < 0 ? " neg" : sum === 0 ? " zero" : "") }, (sum > 0 ? "+" : "") + sum)),
        el("div", { class: "hand small" }, cards.map((c) => stCard(c, { small: true, attribute: r.attribute })))));
    });
    box.appendChild(el("p", { class: "legend muted" }, el("span", { class: "badge-demo" }, "✓"), " " + T("counted") + " · " + T("counted_plus") + " · " + T("counted_minus")));
    const result = el("p", { class: "result-line" }, "✖ ", T("lost_source", { seat: r.loser }), r.eliminated ? " · " + T("eliminated") : "");
    if (r.point_to !== null && r.point_to !== undefined) result.append(" · ★ ", T("scored", { seat: r.point_to }));
    box.appendChild(result);
    return box;
  }

  function draw(obs, ctx) {
    const root = el("div", { class: "st" });
    const over = obs.phase === "over";
    root.appendChild(el("div", { class: "status-line" }, over ? T("game_over")
      : [T("round", { n: obs.round }), T("first_to", { n: obs.points_to_win }), T("cards_in_play", { n: obs.cards_in_play })].join(" · ")));
    const nexts = kit.choicesOf(ctx, "next");
    root.appendChild(seats(obs, ctx, nexts));
    if (nexts.length && nexts.length === (ctx.choices || []).length) {
      if (nexts.length === 1) {
        root.appendChild(el("p", { class: "st-note", id: "st-auto-next" }, T("auto_next", { seat: nexts[0].args.seat })));
        const v = version();
        if (!ctx.disabled && typeof ctx.act === "function" && autoAt !== v) {
          autoAt = v;
          queueMicrotask(() => ctx.act(nexts[0].action)); // after the frame has drawn this version
        }
      } else {
        root.appendChild(el("p", { class: "st-note choose" }, T("choose_next")));
      }
    }
    if (over && obs.last_reveal) root.appendChild(reveal(obs, ctx));
    const middle = el("div", { class: "st-middle" }, currentBid(obs, ctx), bidMaker(ctx));
    if (!over) root.appendChild(middle);
    const list = bidList(obs, ctx);
    if (list) root.appendChild(list);
    if (!over && obs.last_reveal) root.appendChild(reveal(obs, ctx));
    return root;
  }

  // The seat list's line for a seat: its points (of the points to win) and its active Sources;
  // hands stay hidden, as on the board.
  draw.seatInfo = (obs, s) => {
    const sources = (obs.sources || [])[s];
    if (sources === undefined) return null;
    return { score: (obs.points || [])[s] || 0,
      facts: [el("span", { class: "st-seat-sources", title: T("sources_of", { n: sources, start: obs.start_sources }) }, "◉ " + sources + "/" + obs.start_sources)] };
  };

  return draw;
});
