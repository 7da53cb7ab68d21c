// The lobby: create a table for any registered game, list open and finished tables, join by code.
"use strict";

(function () {
  const games = JSON.parse(document.getElementById("games-data").textContent);
  const bots = JSON.parse(document.getElementById("bots-data").textContent);
  const gameSelect = document.getElementById("game-select");
  const playersSelect = document.getElementById("players-select");
  const seatList = document.getElementById("seat-list");
  const nameInput = document.getElementById("name-input");
  const errorBox = document.getElementById("create-error");

  nameInput.value = Tokens.name();

  for (const g of games) {
    gameSelect.appendChild(el("option", { value: g.id }, gameName(g.id)));
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
    const keys = Object.keys(g.ruleset);
    const example = keys.length ? JSON.stringify({ [keys[0]]: g.ruleset[keys[0]] }) : "{}";
    document.getElementById("overrides-help").textContent = t("lobby.overrides_help", { example });
    fillSeats();
  }

  function fillSeats() {
    const n = Number(playersSelect.value);
    const before = Array.from(seatList.querySelectorAll("select")).map((s) => s.value);
    clear(seatList);
    for (let i = 0; i < n; i++) {
      const select = el("select", { class: "seat-kind", "data-seat": i, "aria-label": t("lobby.seat_n", { n: i }) },
        el("option", { value: "me" }, t("lobby.me")),
        el("option", { value: "human" }, t("lobby.person")),
        bots.map((b) => el("option", { value: "bot:" + b }, t("lobby.bot") + ": " + b)));
      select.value = before[i] || (i === 0 ? "me" : "bot:" + bots[0]);
      select.addEventListener("change", () => {
        if (select.value === "me") {
          for (const other of seatList.querySelectorAll("select")) {
            if (other !== select && other.value === "me") other.value = "human";
          }
        }
      });
      seatList.appendChild(el("div", { class: "seat-row" }, el("span", {}, t("lobby.seat_n", { n: i })), select));
    }
  }

  gameSelect.addEventListener("change", () => { clear(seatList); fillPlayers(); });
  playersSelect.addEventListener("change", fillSeats);
  fillPlayers();

  document.getElementById("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
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
    const timer = document.getElementById("timer-input").value.trim();
    if (timer) body.turn_seconds = Number(timer);
    const overrides = document.getElementById("overrides-input").value.trim();
    if (overrides) {
      try { body.overrides = JSON.parse(overrides); } catch (e) {
        errorBox.textContent = errorText("request.bad_json"); return;
      }
    }
    if (body.name) Tokens.setName(body.name);
    try {
      const made = await api("POST", "/api/tables", body);
      Tokens.setHost(made.id, made.host_token);
      if (made.token) Tokens.setSeat(made.id, made.token);
      window.location.href = made.url;
    } catch (e) {
      errorBox.textContent = e.message;
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

  function seatNames(table) {
    return table.seats.map((s) => (s.kind === "bot" ? t("table.bot") + " " + s.bot : (s.name || "—"))).join(", ");
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
        " · ", table.players, " · ", seatNames(table),
        free ? [" · ", el("strong", {}, t("lobby.free_seats", { n: free }))] : "",
        " · ", t("lobby.version", { n: table.version })));
    }
    const done = clear(document.getElementById("finished-list"));
    for (const table of data.finished) {
      const winners = table.result && table.result.winners ? table.result.winners : [];
      done.appendChild(el("li", { class: "table-item" },
        gameName(table.game), " · ", seatNames(table), " · ",
        t("lobby.winners", { list: winners.length ? winners.map((w) => t("table.seat", { n: w })).join(", ") : "—" }),
        " · ", el("a", { href: "/t/" + table.id + "/replay" }, t("lobby.replay"))));
    }
  }
  refresh();
  setInterval(refresh, 5000);
})();
