// A playtest's public page (/p/<name>): choose who sits where and press Play; the finished
// games with their replays; and, when the address carries the designer's token in its
// fragment (#designer=...), the report and the close button. The fragment is never sent to the
// server by the browser, so the token only travels in the body of the designer's own requests.
(function () {
  "use strict";
  const doc = JSON.parse(document.getElementById("playtest-data").textContent);
  const base = "/api/playtests/" + encodeURIComponent(doc.name);

  function seatRow(seat) {
    const select = el("select", { id: "play-seat-" + seat, "aria-label": t("playtest.seat", { n: seat + 1 }) },
      el("option", { value: "human" }, seat === 0 ? t("playtest.you") : t("playtest.person")),
      el("option", { value: "bot" }, t("playtest.bot")));
    select.value = seat === 0 ? "human" : "bot";
    if (seat === 0) select.disabled = true;
    return el("li", {}, t("playtest.seat", { n: seat + 1 }) + " ", select);
  }

  function drawSeats(count) {
    const box = document.getElementById("play-seats");
    if (!box) return;
    clear(box);
    const counts = [];
    for (let n = doc.min_players; n <= doc.max_players; n++) counts.push(n);
    if (counts.length > 1) {
      const pick = el("select", { id: "play-count" },
        ...counts.map((n) => el("option", { value: String(n) }, String(n))));
      pick.value = String(count);
      pick.addEventListener("change", () => drawSeats(Number(pick.value)));
      box.append(el("p", {}, el("label", { for: "play-count" }, t("playtest.players") + " "), pick));
    }
    const list = el("ol", { id: "play-seat-list" });
    for (let seat = 0; seat < count; seat++) list.append(seatRow(seat));
    box.append(list);
  }

  async function play() {
    const error = document.getElementById("play-error");
    const seats = [...document.querySelectorAll("#play-seat-list select")].map((s) => s.value);
    const name = document.getElementById("play-name").value.trim();
    if (name) Tokens.setName(name);
    const button = document.getElementById("play-button");
    button.disabled = true;
    error.textContent = "";
    try {
      const made = await api("POST", base + "/tables", { seats, ...(name ? { name } : {}) });
      Tokens.setHost(made.id, made.host_token);
      if (made.token) Tokens.setSeat(made.id, made.token);
      window.location.href = made.url;
    } catch (e) {
      button.disabled = false;
      error.textContent = errorText(e.code, e.message);
    }
  }

  function drawFinished() {
    const list = document.getElementById("finished-list");
    clear(list);
    if (!doc.finished.length) { list.append(el("li", { class: "help" }, t("playtest.none_finished"))); return; }
    for (const game of doc.finished) {
      const winners = (game.winners || []).map((s) => t("playtest.seat", { n: s + 1 })).join(", ");
      list.append(el("li", { dataset: { table: game.id } },
        el("a", { href: game.replay }, t("playtest.replay")),
        " · " + t("playtest.players_n", { n: game.players }) + " · ", t("playtest.won", { seats: winners || "—" })));
    }
  }

  // The report as tables: each people's figure with the bots' beside it, flagged where it lies
  // outside the bots' interval (the server decides the flags; this only shows them).
  const pct = (x) => Math.round(100 * x) + "%";
  const num = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(3));

  function interval(r, value) {
    if (!r) return "–";
    return value === "rate"
      ? pct(r.rate) + " [" + pct(r.low) + ", " + pct(r.high) + "]" + (r.games !== undefined ? " (" + r.wins + "/" + r.games + ")" : "")
      : num(r.value) + " [" + num(r.low) + ", " + num(r.high) + "]" + (r.n !== undefined ? " (n=" + r.n + ")" : "");
  }

  function flagCell(r) {
    if (!r.outside) return el("td", {});
    return el("td", { class: "flag", style: "color:#b00020;font-weight:bold" },
      "⚠ " + t(r.apart ? "playtest.r_apart" : "playtest.r_outside"));
  }

  function figureTable(title, rows, value) {
    const cell = { style: "border:1px solid #ccc;padding:2px 8px" };
    const head = [t("playtest.r_what"), t("playtest.r_people"), t("playtest.r_bots"), ""];
    const body = rows.map(([label, r]) => {
      const flag = flagCell(r);
      Object.assign(flag.style, { border: "1px solid #ccc", padding: "2px 8px" });
      return el("tr", r.outside ? { class: "outside" } : {}, el("td", cell, label),
        el("td", cell, interval(r, value)), el("td", cell, interval(r.bots, value)), flag);
    });
    return [el("h3", {}, title), el("table", { style: "border-collapse:collapse" },
      el("tr", {}, ...head.map((h) => el("th", cell, h))), ...body)];
  }

  function closeness(c) {
    const parts = [el("h3", {}, t("playtest.r_close"))];
    const p = c.pearson;
    parts.push(el("p", {}, p ? t("playtest.r_pearson", { r: p.r.toFixed(2), low: p.low.toFixed(2), high: p.high.toFixed(2), n: p.n })
      : t("playtest.r_pearson_none", { n: c.games })));
    if (c.terciles.length) {
      parts.push(el("ul", {}, ...c.terciles.map((x) => el("li", {}, t("playtest.r_tercile",
        { low: num(x.drama_low), high: num(x.drama_high), mean: x.mean.toFixed(2), n: x.n })))));
    }
    return parts;
  }

  // A ruleset key named as confusing, in the designer's own language (the report carries the
  // English words; the page's catalogue has every key's, as the players' picker had).
  function ruleWords(c) {
    const key = c.id.startsWith("key:") ? "feedback.rule." + c.id.slice(4) : null;
    return key && t(key) !== key ? t(key) : c.label;
  }

  function questionnaire(fb) {
    const parts = [el("h3", {}, t("playtest.r_questionnaire", { n: fb.count }))];
    if (!fb.count) return parts;
    parts.push(el("ul", {}, ...Object.entries(fb.scales).map(([key, s]) => el("li", {},
      t("feedback." + key) + " " + s.mean.toFixed(2) + (s.low !== null ? " [" + s.low.toFixed(2) + ", " + s.high.toFixed(2) + "]" : "") + " (n=" + s.n + ")")),
      el("li", {}, t("feedback.length") + " " + Object.entries(fb.length).map(([k, r]) => t("feedback.length." + k) + " " + pct(r.rate)).join(", ")),
      ...fb.confusing.map((c) => el("li", {}, t("playtest.r_confusing", { rule: ruleWords(c), n: c.wins, of: c.games })))));
    if (fb.comments.length) parts.push(el("ul", {}, ...fb.comments.map((c) => el("li", { dir: "auto" }, c.text))));
    return parts;
  }

  function botsNote(report) {
    const bots = report.bots;
    if (!bots.run) return [el("p", { class: "notice" }, t("playtest.r_no_bots", { command: bots.study }))];
    const parts = [el("p", {}, t("playtest.r_bots_note", { bot: bots.agent, games: bots.games_per_count, flags: report.flags }))];
    const rob = bots.robustness;
    if (rob) {
      parts.push(el("p", rob.flips.length ? { class: "notice" } : {}, t(rob.flips.length ? "playtest.r_robust_flips" : "playtest.r_robust_ok",
        { mix: robustMix(rob), k: rob.flips.length })));
    }
    return parts;
  }

  // The second mix in words: one phrase while every count had the same search bot and games,
  // else each count's own (a Strong that differs by count, or a sample cut by time at some).
  function robustMix(rob) {
    const played = rob.played || {};
    const search = rob.search_by_count || {};
    const counts = Object.keys(played).sort((a, b) => a - b);
    const same = counts.every((p) => played[p] === played[counts[0]] && (search[p] || rob.search) === (search[counts[0]] || rob.search));
    if (!counts.length || same) return t("playtest.r_robust_mix_same", { search: rob.search, n: counts.length ? played[counts[0]] : rob.games_per_count });
    return counts.map((p) => t("playtest.r_robust_mix_count", { players: p, search: search[p] || rob.search, n: played[p] })).join(t("playtest.r_robust_mix_sep"));
  }

  function drawReport(report) {
    const parts = [el("p", {}, t("playtest.r_people_games", { n: report.human_games }))];
    if (!report.human_games) return parts.concat(questionnaire(report.feedback), botsNote(report));
    parts.push(...botsNote(report));
    const seat = (s) => t("playtest.players_n", { n: s.players }) + " · " + t("playtest.seat", { n: s.seat + 1 });
    parts.push(...figureTable(t("playtest.r_seats"), report.seats.map((s) => [seat(s), s]), "rate"));
    if (report.sides.length) parts.push(...figureTable(t("playtest.r_sides"), report.sides.map((s) => [t("playtest.players_n", { n: s.players }) + " · " + s.side, s]), "rate"));
    const endings = report.ending_shares || [];
    if (endings.length) parts.push(...figureTable(t("playtest.r_endings"), endings.map((e) => [t("playtest.players_n", { n: e.players }) + " · " + e.ending, e]), "rate"));
    const metrics = [];
    for (const [p, m] of Object.entries(report.metrics)) {
      for (const [key, v] of Object.entries(m)) if (v) metrics.push([t("playtest.players_n", { n: p }) + " · " + key, v]);
    }
    for (const [p, n] of Object.entries(report.length || {})) {
      metrics.push([t("playtest.players_n", { n: p }) + " · " + n.unit, n.mean]);
    }
    if (metrics.length) parts.push(...figureTable(t("playtest.r_metrics"), metrics, "value"));
    const m = report.minutes;
    if (m.games) parts.push(el("p", {}, t("playtest.r_minutes", { median: m.median.toFixed(1), p90: m.p90.toFixed(1), n: m.games })));
    return parts.concat(closeness(report.closeness), questionnaire(report.feedback));
  }

  // For the designer only: each answer under its game's replay link, so a comment or a low
  // score can be read against the game it was about.
  function answersBesideReplays(answers) {
    for (const item of document.querySelectorAll("#finished-list li[data-table]")) {
      const old = item.querySelector(".beside-replay");
      if (old) old.remove();
      const mine = answers.filter((a) => a.table === item.dataset.table);
      if (!mine.length) continue;
      item.append(el("ul", { class: "beside-replay" }, ...mine.map((a) => el("li", {},
        t("feedback.beside_replay", { seat: t("playtest.seat", { n: a.seat + 1 }), fun: a.fun, clarity: a.clarity,
          close: a.close, length: t("feedback.length." + a.length) }),
        ...(a.comment ? [" · ", el("q", { dir: "auto" }, a.comment)] : [])))));
    }
  }

  function designer() {
    const match = /(?:^#|&)designer=([^&]+)/.exec(window.location.hash);
    if (!match) return;
    const token = decodeURIComponent(match[1]);
    const panel = document.getElementById("designer-panel");
    const error = document.getElementById("designer-error");
    panel.hidden = false;
    document.getElementById("report-button").addEventListener("click", async () => {
      error.textContent = "";
      try {
        const report = await api("POST", base + "/report", { token });
        // the whole report as text, folded under the tables (style via the CSSOM: CSP allows it)
        const text = el("pre", { id: "designer-report", style: "white-space:pre-wrap;overflow-wrap:anywhere" }, report.text);
        const shown = document.getElementById("designer-tables");
        clear(shown).append(...drawReport(report), el("details", {}, el("summary", {}, t("playtest.r_text")), text));
        shown.hidden = false;
        answersBesideReplays(report.answers || []);
      } catch (e) { error.textContent = errorText(e.code, e.message); }
    });
    const close = document.getElementById("close-button");
    if (close) {
      close.addEventListener("click", async () => {
        error.textContent = "";
        try {
          await api("POST", base + "/close", { token });
          close.remove();
          const panelPlay = document.getElementById("play-panel");
          clear(panelPlay).append(el("p", { class: "notice", id: "playtest-closed" }, t("playtest.closed_now")));
        } catch (e) { error.textContent = errorText(e.code, e.message); }
      });
    }
  }

  drawSeats(doc.min_players);
  const nameBox = document.getElementById("play-name");
  if (nameBox) nameBox.value = Tokens.name();
  const button = document.getElementById("play-button");
  if (button) button.addEventListener("click", play);
  drawFinished();
  designer();
})();
