// The lobby: the games as cards (picture, two lines, players, time, rules), a table made for
// any of them (seats, bots by strength, a ruleset editor checked by the server before the
// table is made), "My games" (the tables this browser made or sat at, kept in this browser
// only), the public tables and finished games, and joining by code.
"use strict";

(function () {
  const games = JSON.parse(document.getElementById("games-data").textContent);
  const bots = sortBots(JSON.parse(document.getElementById("bots-data").textContent));
  const defaultBot = bots.includes("heuristic") ? "heuristic" : bots[0];
  const gameSelect = document.getElementById("game-select");
  const playersSelect = document.getElementById("players-select");
  const seatList = document.getElementById("seat-list");
  const nameInput = document.getElementById("name-input");
  const errorBox = document.getElementById("create-error");
  const fields = document.getElementById("ruleset-fields");
  const lang = document.documentElement.lang || "en";

  nameInput.value = Tokens.name();

  for (const g of games) {
    gameSelect.appendChild(el("option", { value: g.id }, g.name || gameName(g.id)));
  }

  // -- the game cards -----------------------------------------------------------------------
  function drawCards() {
    const list = clear(document.getElementById("game-cards"));
    for (const g of games) {
      const picked = g.id === gameSelect.value;
      const name = g.name || gameName(g.id);
      const picture = g.icon
        ? el("img", { class: "game-icon", src: g.icon, alt: "", width: 72, height: 72 })
        : el("span", { class: "game-icon plain", "aria-hidden": "true" }, initials(g.title || name));
      const facts = [t("lobby.players_range", { min: g.min_players, max: g.max_players })];
      if (g.time) facts.push(g.time);
      list.appendChild(el("li", { class: "game-card" + (picked ? " picked" : ""), "data-game": g.id },
        picture,
        el("div", { class: "game-card-text" },
          el("h3", {}, name),
          g.about ? el("p", { class: "about" }, g.about) : null,
          el("p", { class: "facts" }, facts.join(" · ")),
          el("p", { class: "card-actions" },
            el("button", { type: "button", class: "pick-game", "data-game": g.id, "aria-pressed": picked ? "true" : "false",
              onclick: () => pickGame(g.id) }, t("lobby.pick_game")),
            g.rules ? el("a", { class: "rules-link", href: "/games/" + encodeURIComponent(g.id) + "/rules?lang=" + encodeURIComponent(lang) },
              t("lobby.rules")) : null))));
    }
  }

  // A game without a picture gets a plain tile with the initials of its title.
  function initials(title) {
    const caps = title.split(/\s+/).filter((w) => /^[A-Z]/.test(w)).map((w) => w[0]);
    return (caps.length ? caps.join("") : title.slice(0, 1)).slice(0, 2);
  }

  function pickGame(id) {
    gameSelect.value = id;
    clear(seatList);
    fillPlayers();
    document.getElementById("create-panel").scrollIntoView({ block: "start", behavior: "smooth" });
    playersSelect.focus({ preventScroll: true });
  }

  function currentGame() {
    return games.find((g) => g.id === gameSelect.value) || games[0];
  }

  function fillPlayers() {
    const g = currentGame();
    clear(playersSelect);
    for (let n = g.min_players; n <= g.max_players; n++) {
      playersSelect.appendChild(el("option", { value: n, selected: n === g.default_players }, n));
    }
    fillSeats();
    fillRuleset();
    drawCards();
  }

  // -- seats: shown from 1; bots named by strength, their spec on hover ---------------------------
  // Each game offers its own levels (no "Expert" where it would be Strong again), and says
  // beside them what its levels are worth where one is not measured above the one below.
  function fillSeats() {
    const n = Number(playersSelect.value);
    const g = currentGame();
    const offered = g.bots ? sortBots(g.bots) : bots;
    const fallback = offered.includes(defaultBot) ? defaultBot : offered[0];
    // The seats chosen so far are kept when the player count changes (a new game starts afresh).
    const before = Array.from(seatList.querySelectorAll("select")).map((s) => s.value);
    clear(seatList);
    for (let i = 0; i < n; i++) {
      const select = el("select", { class: "seat-kind", "data-seat": i, "aria-label": t("lobby.seat_n", { n: i + 1 }) },
        el("option", { value: "me" }, t("lobby.me")),
        el("option", { value: "human" }, t("lobby.person")),
        offered.map((b) => el("option", { value: "bot:" + b, title: b }, t("lobby.bot") + ": " + botLevel(b))));
      select.value = before[i] || (i === 0 ? "me" : "bot:" + fallback);
      const hover = () => { select.title = select.value.startsWith("bot:") ? select.value.slice(4) : ""; };
      hover();
      select.addEventListener("change", () => {
        hover();
        if (select.value === "me") {
          for (const other of seatList.querySelectorAll("select")) {
            if (other !== select && other.value === "me") other.value = "human";
          }
        }
      });
      seatList.appendChild(el("div", { class: "seat-row" }, el("span", {}, t("lobby.seat_n", { n: i + 1 })), select));
    }
    const note = document.getElementById("bots-note");
    note.textContent = g.bots_note || "";
    note.hidden = !g.bots_note;
  }

  // -- the ruleset editor -------------------------------------------------------------------------
  // One typed input per key with its default: a checkbox for a yes/no, a number for a number, a
  // select where the game declares the values, else text (JSON for a list or a table).
  function kindOf(value, known) {
    if (typeof value === "boolean") return "bool";
    if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
    if (typeof value === "string") return known && known.length > 1 ? "choice" : "text";
    return "json";
  }

  function fillRuleset() {
    const g = currentGame();
    clear(fields);
    for (const [key, value] of Object.entries(g.ruleset)) {
      const known = (g.ruleset_values || {})[key];
      const kind = kindOf(value, known);
      const id = "rule-" + key;
      let input;
      const common = { id, class: "rule-input", "data-key": key, "data-kind": kind, "aria-describedby": id + "-error" };
      if (kind === "bool") {
        input = el("input", { ...common, type: "checkbox", checked: value });
      } else if (kind === "int" || kind === "float") {
        input = el("input", { ...common, type: "number", step: kind === "int" ? "1" : "any", value: String(value) });
      } else if (kind === "choice") {
        input = el("select", common, known.map((v) => el("option", { value: v, selected: v === value }, v)));
      } else {
        input = el("input", { ...common, type: "text", spellcheck: "false",
          value: kind === "json" ? JSON.stringify(value) : value });
      }
      input.addEventListener("change", () => { fieldError(key, ""); markChanged(); });
      fields.appendChild(el("div", { class: "rule-row" + (kind === "bool" ? " bool" : ""), "data-key": key },
        el("label", { for: id }, el("code", {}, key)),
        input,
        el("span", { class: "field-error error", id: id + "-error", "data-key": key, role: "alert" })));
    }
    markChanged();
  }

  function readField(input) {
    const kind = input.dataset.kind;
    if (kind === "bool") return input.checked;
    if (kind === "int" || kind === "float") {
      const text = input.value.trim();
      const n = Number(text);
      if (text === "" || !Number.isFinite(n) || (kind === "int" && !Number.isInteger(n))) throw new Error(t("lobby.ruleset_bad_number"));
      return n;
    }
    if (kind === "json") {
      try { return JSON.parse(input.value); } catch (e) { throw new Error(t("lobby.ruleset_bad_json")); }
    }
    return input.value;
  }

  // The keys whose value differs from the default (only those are sent); a field that cannot
  // be read is marked at once.
  function overrides() {
    const g = currentGame();
    const out = {};
    let bad = null;
    for (const input of fields.querySelectorAll(".rule-input")) {
      const key = input.dataset.key;
      let value;
      try { value = readField(input); } catch (e) { fieldError(key, e.message); bad = bad || input; continue; }
      if (JSON.stringify(value) !== JSON.stringify(g.ruleset[key])) out[key] = value;
    }
    return { out, bad };
  }

  function markChanged() {
    let n = 0;
    try { n = Object.keys(overrides().out).length; } catch (e) { n = 0; }
    document.getElementById("ruleset-changed").textContent = n ? t("lobby.ruleset_changed", { n }) : "";
  }

  function fieldError(key, text) {
    const box = fields.querySelector(`.field-error[data-key="${CSS.escape(key)}"]`);
    if (box) box.textContent = text;
    const row = fields.querySelector(`.rule-row[data-key="${CSS.escape(key)}"]`);
    if (row) row.classList.toggle("bad", !!text);
  }

  document.getElementById("ruleset-reset").addEventListener("click", fillRuleset);
  gameSelect.addEventListener("change", () => { clear(seatList); fillPlayers(); });
  playersSelect.addEventListener("change", fillSeats);
  fillPlayers();

  // Only the chosen clock's inputs show.
  const clockKind = document.getElementById("clock-kind");
  function showClock() {
    document.getElementById("clock-turn").hidden = clockKind.value !== "turn";
    document.getElementById("clock-bank").hidden = clockKind.value !== "bank";
  }
  clockKind.addEventListener("change", showClock);
  showClock();

  document.getElementById("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
    fields.querySelectorAll(".field-error").forEach((b) => { b.textContent = ""; });
    fields.querySelectorAll(".rule-row.bad").forEach((r) => r.classList.remove("bad"));
    const seats = [];
    let mySeat = null;
    seatList.querySelectorAll("select").forEach((s, i) => {
      if (s.value === "me") { mySeat = i; seats.push("human"); } else { seats.push(s.value); }
    });
    const body = {
      game: gameSelect.value,
      players: Number(playersSelect.value),
      seats,
      seat: mySeat,
      name: nameInput.value.trim() || undefined,
    };
    body.away_bot = document.getElementById("away-bot").checked;
    body.public = document.getElementById("public-table").checked;
    // The clock: none, the same time every turn (turn_seconds), or a time bank per player
    // (clock: {bank, increment}, in seconds; the form asks for the bank in minutes).
    const timer = document.getElementById("timer-input").value.trim();
    if (clockKind.value === "turn" && timer) body.turn_seconds = Number(timer);
    if (clockKind.value === "bank") {
      const minutes = Number(document.getElementById("bank-input").value.trim() || "5");
      const increment = Number(document.getElementById("increment-input").value.trim() || "0");
      body.clock = { bank: Math.round(minutes * 60), increment: Math.round(increment) };
    }
    const changes = overrides();
    if (changes.bad) {
      document.getElementById("ruleset-editor").open = true;
      errorBox.textContent = t("lobby.ruleset_fix");
      changes.bad.focus();
      return;
    }
    if (Object.keys(changes.out).length) {
      body.overrides = changes.out;
      // The engine checks the values first: a refused one is shown next to its field and no
      // table is made.
      try {
        await api("POST", "/api/rulesets/check", { game: body.game, players: body.players, overrides: body.overrides });
      } catch (e) {
        document.getElementById("ruleset-editor").open = true;
        const input = e.key ? fields.querySelector(`.rule-input[data-key="${CSS.escape(e.key)}"]`) : null;
        if (input) {
          fieldError(e.key, t("lobby.ruleset_refused", { message: e.message }));
          input.focus();
          errorBox.textContent = t("lobby.ruleset_fix");
        } else {
          errorBox.textContent = e.code && e.code.startsWith("limits.") ? errorText(e.code, e.message) : e.message;
        }
        return;
      }
    }
    if (body.name) Tokens.setName(body.name);
    try {
      const made = await api("POST", "/api/tables", body);
      Tokens.setHost(made.id, made.host_token);
      if (made.token) Tokens.setSeat(made.id, made.token);
      window.location.href = made.url;
    } catch (e) {
      // a limit's refusal in the page's language; other refusals say exactly what was wrong
      const limit = e.code && e.code.startsWith("limits.");
      errorBox.textContent = limit ? errorText(e.code, e.message) : e.message;
    }
  });

  // A join code (any case, dashes optional) is looked up; a pasted link is simply followed.
  document.getElementById("join-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const box = document.getElementById("join-error");
    box.textContent = "";
    const code = document.getElementById("join-code").value.trim();
    if (!code) return;
    const link = code.match(/\/t\/([A-Za-z0-9_-]+)/);
    if (link) { window.location.href = "/t/" + link[1]; return; }
    try {
      const found = await api("GET", "/api/codes/" + encodeURIComponent(code));
      window.location.href = found.url;
    } catch (e) {
      box.textContent = e.code === "table.no_such_table" ? t("lobby.no_such_code") : e.message;
    }
  });

  // each person's name in its own <bdi>, so one right-to-left name cannot reorder the list
  function seatNames(table) {
    return table.seats.map((s, i) => [i ? ", " : "",
      s.kind === "bot" ? t("table.bot") + " " + botLevel(s.bot) : (s.name ? bdi(s.name) : "—")]);
  }

  async function refresh() {
    let data;
    try { data = await api("GET", "/api/tables"); } catch (e) { return; }
    const list = clear(document.getElementById("table-list"));
    if (!data.tables.length) list.appendChild(el("li", { class: "empty" }, t("lobby.no_tables")));
    for (const table of data.tables) {
      const free = table.seats.filter((s) => !s.claimed).length;
      list.appendChild(el("li", { class: "table-item", "data-table": table.id },
        el("a", { href: "/t/" + table.id }, gameName(table.game)),
        " · ", t("status." + table.status),
        " · ", t("lobby.players_n", { n: table.players }), " · ", seatNames(table),
        free ? [" · ", el("strong", {}, t("lobby.free_seats", { n: free }))] : "",
        " · ", t("lobby.version", { n: table.version })));
    }
    const done = clear(document.getElementById("finished-list"));
    for (const table of data.finished) {
      const winners = table.result && table.result.winners ? table.result.winners : [];
      done.appendChild(el("li", { class: "table-item" },
        gameName(table.game), " · ", seatNames(table), " · ",
        t("lobby.winners", { list: winners.length ? winners.map((w) => t("table.seat", { n: w + 1 })).join(", ") : "—" }),
        " · ", el("a", { href: "/t/" + table.id + "/replay" }, t("lobby.replay"))));
    }
  }
  // -- My games: what this browser remembers (common.js MyGames), each table's state asked of
  // the table API by its id; nothing of this list is sent to or listed by the server.
  const states = {};
  function when(iso) {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return "";
    try {
      return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(d);
    } catch (e) { return d.toISOString().slice(0, 16).replace("T", " "); }
  }

  function drawMine() {
    const list = clear(document.getElementById("my-games"));
    const items = MyGames.list();
    if (!items.length) list.appendChild(el("li", { class: "empty" }, t("lobby.my_games_empty")));
    for (const g of items) {
      const state = states[g.id];
      const status = state ? state.status : null;
      const stamp = when(g.at);
      const base = "/t/" + encodeURIComponent(g.id);
      const stateText = !state ? "…" : state.gone ? t("lobby.state_gone") : state.unknown ? t("lobby.state_unknown") : t("status." + status);
      list.appendChild(el("li", { class: "table-item my-game", "data-mine": g.id, "data-status": state ? (state.gone ? "gone" : state.unknown ? "unknown" : status) : "loading" },
        el("a", { class: "my-game-table", href: base }, gameName(g.game)),
        typeof g.seat === "number" ? [" · ", t("table.seat", { n: g.seat + 1 })] : "",
        " · ", el("span", { class: "my-game-state" }, stateText),
        stamp ? [" · ", el("time", { datetime: g.at }, stamp)] : "",
        status === "finished" ? [" · ", el("a", { class: "my-game-replay", href: base + "/replay" }, t("lobby.replay"))] : "",
        " ", el("button", { type: "button", class: "forget", "data-mine": g.id,
          "aria-label": t("lobby.forget_label", { game: gameName(g.game), when: stamp }),
          onclick: () => { MyGames.forget(g.id); delete states[g.id]; drawMine(); } }, t("lobby.forget"))));
    }
  }

  async function refreshMine() {
    const items = MyGames.list();
    await Promise.all(items.map(async (g) => {
      if (states[g.id] && (states[g.id].status === "finished" || states[g.id].gone)) return; // settled
      try {
        const info = await api("GET", "/api/tables/" + encodeURIComponent(g.id));
        states[g.id] = { status: info.status };
      } catch (e) {
        states[g.id] = e.code === "table.no_such_table" || e.code === "http_404" ? { gone: true } : { unknown: true };
      }
    }));
    drawMine();
  }
  // -- My games to and from another device (common.js MyGamesTransfer) -------------------------
  function receiveMine() {
    const entries = MyGamesTransfer.decode(window.location.hash);
    if (entries === null) return;
    // the tokens leave the address bar (and this page's history entry) before anything else
    history.replaceState(null, "", window.location.pathname + window.location.search);
    const added = MyGamesTransfer.receive(entries);
    const box = document.getElementById("my-games-received");
    box.textContent = entries.length ? t("lobby.mygames.received", { n: added, total: entries.length })
      : t("lobby.mygames.received_none");
    box.hidden = false;
  }

  const transfer = document.getElementById("my-games-transfer");
  const linkBox = document.getElementById("my-games-link");
  // made when opened, so it holds the list as it is then
  transfer.addEventListener("toggle", () => { if (transfer.open) linkBox.value = MyGamesTransfer.link(); });
  document.getElementById("my-games-copy").addEventListener("click", async () => {
    linkBox.value = MyGamesTransfer.link();
    linkBox.select();
    try { await navigator.clipboard.writeText(linkBox.value); } catch (e) { return; /* selected to copy by hand */ }
    document.getElementById("my-games-copy").textContent = t("table.copied");
  });
  // a link pasted into this lobby's address bar changes only the fragment: no reload
  window.addEventListener("hashchange", () => { receiveMine(); drawMine(); refreshMine(); });

  receiveMine();
  drawMine();
  refreshMine();

  refresh();
  setInterval(refresh, 5000);
  setInterval(refreshMine, 15000);
})();
