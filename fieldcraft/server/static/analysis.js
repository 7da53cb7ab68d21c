// "What would the strong bot have done?": a panel beside the replay (in #replay-extras) that asks
// the server's strong bot about the step shown (GET /api/tables/<id>/analysis?step=K) and draws
// its choice and, per option, a bar of its estimated chance to win, the move actually played
// marked. The server judges each step from the view of the seat to move only, so the panel is the
// same whichever point of view the replay shows. Choices arrive structured ({action, kind, args})
// and are worded by Boards.textFor in the page's language, like the table's own buttons.
// A search takes a moment and the server has one worker for everybody, so the panel asks when the
// "Ask" button is pressed, or at every step once "At every step" is ticked (never while the
// replay plays); answers are kept per step in the page as well as on the server.
// The bot is the game's Strong level (an ISMCTS in most games, an expectimax over the dice in
// Against the Current), named under its choice ("Strong: expectimax, 3 turns") from the answer's
// `agent`. A bot without per-option estimates (the expectimax, the heuristic rollouts) shows its
// choice and the move played.
"use strict";

(function () {
  const slot = document.getElementById("replay-extras");
  if (!slot) return;
  const SHOWN = 8; // options drawn as bars (Spy Tracker has hundreds of bids); the rest are counted
  const cache = new Map();
  let current = null;

  const body = el("div", { id: "analysis-body", "aria-live": "polite" });
  const ask = el("button", { type: "button", id: "analysis-ask", onclick: () => compute() }, t("analysis.ask"));
  const auto = el("input", { type: "checkbox", id: "analysis-auto" });
  auto.addEventListener("change", () => { if (auto.checked) refresh(); });
  const panel = el("div", { class: "panel analysis-panel", id: "analysis-panel" },
    el("h2", {}, t("analysis.title")),
    el("div", { class: "analysis-controls", style: "display:flex;gap:0.75em;align-items:center;flex-wrap:wrap" },
      ask, el("label", {}, auto, " ", t("analysis.auto"))),
    body);
  slot.appendChild(panel);

  // "Seat 3", with a person's name: the bot's level is beside the board already.
  function seatLabel(seat) {
    const s = (current && current.data.seats || [])[seat];
    const name = s && s.kind !== "bot" ? isolate(s.name) : "";
    return t("table.seat", { n: seat + 1 }) + (name ? " · " + name : "");
  }

  function textOf(seat) {
    const seats = current ? current.data.seats || [] : [];
    const names = (n) => {
      const s = seats[n];
      if (!s) return null;
      return s.kind === "bot" ? t("table.bot_n", { n: n + 1, level: botLevel(s.bot) }) : isolate(s.name) || null;
    };
    return Boards.textFor({ viewer: seat, names });
  }

  function state(name) {
    body.dataset.state = name;
    ask.disabled = name === "thinking";
  }

  function say(key, values) {
    clear(body).appendChild(el("p", { class: "analysis-note" }, t(key, values)));
  }

  function refresh() {
    if (!current) return;
    const step = current.step;
    const known = cache.get(step);
    if (known) { draw(known); return; }
    if (auto.checked && document.body.dataset.playing !== "yes") { compute(); return; }
    state("idle");
    say("analysis.prompt");
  }

  async function compute() {
    if (!current) return;
    const step = current.step;
    const table = current.table.id;
    if (cache.has(step)) { draw(cache.get(step)); return; }
    state("thinking");
    clear(body).appendChild(el("p", { class: "analysis-note analysis-thinking" },
      el("span", { class: "spinner", "aria-hidden": "true" }, "… "),
      t("analysis.thinking")));
    try {
      const data = await api("GET", `/api/tables/${encodeURIComponent(table)}/analysis?step=${step}`);
      cache.set(step, data);
      if (current && current.step === step) draw(data);
    } catch (err) {
      if (!current || current.step !== step) return;
      state("error");
      if (err.code === "limits.analysis_busy") say("analysis.busy");
      else if (err.code === "server.analysis_failed") say("analysis.worker_failed");
      else say("analysis.failed", { message: errorText(err.code, err.message) });
    }
  }

  // "Strong: ISMCTS, up to 4,000 iterations": the answer's agent in the page's language (and,
  // for a search whose hidden roles are weighed by the seats' choices, that it guesses so).
  function agentLabel(agent) {
    if (!agent) return "";
    const o = agent.options || {};
    let how = agent.spec;
    if (agent.kind === "ismcts" && o.iterations) how = t("analysis.how_ismcts", { n: Number(o.iterations).toLocaleString() });
    else if (agent.kind === "expectimax" && o.turns) how = t("analysis.how_expectimax", { turns: o.turns });
    else if (agent.kind === "rollout" && o.rollouts) how = t("analysis.how_rollout", { n: Number(o.rollouts).toLocaleString() });
    if (Number(o.infer) === 1 && how !== agent.spec) how = t("analysis.how_infer", { how });
    return agent.level ? t("analysis.by_level", { level: botLevel(agent.level), how }) : t("analysis.by_budget", { how });
  }

  function percent(win) { return win === null || win === undefined ? null : Math.round(win * 100); }

  function draw(data) {
    clear(body);
    document.body.dataset.analysisStep = String(data.step);
    if (data.nothing) {
      state("nothing");
      say(data.nothing === "terminal" ? "analysis.nothing_terminal" : "analysis.nothing_chance");
      return;
    }
    state("done");
    const text = textOf(data.seat);
    const label = (o) => text.choice(o);
    const byAction = new Map(data.options.map((o) => [o.action, o]));
    const best = byAction.get(data.choice);
    body.appendChild(el("p", { class: "analysis-seat" }, t("analysis.to_move", { seat: seatLabel(data.seat) })));
    body.appendChild(el("p", { id: "analysis-choice", class: "analysis-choice", "data-action": data.choice },
      el("strong", {}, t("analysis.would_play", { choice: label(best) }))));
    if (data.agent) {
      body.appendChild(el("p", { id: "analysis-agent", class: "analysis-agent", "data-kind": data.agent.kind,
        "data-level": data.agent.level || "", style: "margin:0.2em 0;opacity:0.85" }, agentLabel(data.agent)));
    }
    const tree = data.iterations !== null && data.iterations !== undefined;
    const shown = data.options.filter((o) => (tree ? o.visits > 0 : o.win !== null || o.action === data.choice))
      .slice(0, SHOWN);
    const played = byAction.get(data.played);
    if (played && !shown.includes(played)) shown.push(played);
    const list = el("ol", { class: "analysis-options", style: "list-style:none;padding:0;margin:0.5em 0" });
    for (const o of shown) {
      const p = percent(o.win);
      const isPlayed = o.action === data.played;
      const isBest = o.action === data.choice;
      const marks = [];
      if (isBest) marks.push(t("analysis.bot_pick"));
      if (isPlayed) marks.push(t("analysis.played"));
      const row = el("li", { class: "analysis-option" + (isPlayed ? " played" : "") + (isBest ? " best" : ""),
        "data-action": o.action, "data-played": isPlayed ? "yes" : "no", "data-choice": isBest ? "yes" : "no",
        "data-win": p === null ? "" : String(p),
        style: "margin:0.35em 0;padding:0.25em 0.4em;border-radius:4px;" +
          (isPlayed ? "outline:2px solid #c77d00;background:rgba(199,125,0,0.08);" : "") },
      el("div", { class: "analysis-label" }, label(o),
        marks.length ? el("em", { style: "margin-left:0.4em;opacity:0.8" }, "(" + marks.join(", ") + ")") : null),
      (p === null && !tree) ? null : el("div", { style: "display:flex;align-items:center;gap:0.5em;margin-top:0.15em" },
        el("div", { class: "analysis-track", role: "presentation", style: "flex:1;height:0.55em;background:rgba(127,127,127,0.2);border-radius:3px" },
          el("div", { class: "analysis-bar", style: `height:100%;width:${p || 0}%;border-radius:3px;background:${isBest ? "#2f7d32" : "#5a7fa8"}` })),
        el("span", { class: "analysis-figures", style: "white-space:nowrap;font-size:0.9em" },
          p === null ? (tree ? t("analysis.not_tried") : "") : t("analysis.win", { p }),
          tree ? " · " : "", tree ? t("analysis.visits", { n: o.visits }) : "")));
      list.appendChild(row);
    }
    body.appendChild(list);
    const rest = data.options.length - shown.length;
    if (rest > 0 && tree) body.appendChild(el("p", { class: "analysis-note analysis-more" }, t("analysis.more", { n: rest })));
    if (played) {
      body.appendChild(el("p", { class: "analysis-verdict" }, data.played === data.choice
        ? t("analysis.agreed") : t("analysis.disagreed", { choice: label(played) })));
    }
    if (!tree && !data.options.some((o) => o.win !== null)) {
      body.appendChild(el("p", { class: "analysis-note analysis-no-figures" }, t("analysis.no_figures")));
    }
    body.appendChild(el("p", { class: "analysis-note", style: "opacity:0.75;font-size:0.9em" }, tree
      ? t("analysis.view_note", { seat: seatLabel(data.seat), n: data.iterations.toLocaleString() })
      : t("analysis.view_note_policy", { seat: seatLabel(data.seat) })));
  }

  document.addEventListener("replay:step", (event) => {
    current = event.detail;
    refresh();
  });
  state("idle");
})();
