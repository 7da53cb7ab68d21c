// The live table: one WebSocket, the seat's view redrawn on every update, choices as buttons.
//
// The page keeps the last version it has seen. On every (re)connect it says hello with that
// version and the server answers with what was missed (or the whole log), so a dropped
// connection or a server restart costs nothing but a moment. Nothing clicked is lost
// silently: a click while disconnected or while a move is on its way says so, and a move
// whose answer never came (the socket dropped) is asked about in the next hello; the sync
// says whether it landed, and if not the page asks the person to choose again.
"use strict";

(function () {
  const TABLE = JSON.parse(document.getElementById("table-data").textContent);
  const tableId = TABLE.id;
  let info = TABLE;
  let token = Tokens.seat(tableId);
  let you = null;
  let version = null;
  let view = null;
  let logEntries = [];
  let ws = null;
  let retry = 0;
  let nextId = 1;
  let waiting = false; // an action was sent and not yet answered
  let pending = null; // {version, action} of that action
  let unsure = null; // an action whose answer was lost with the socket: asked about on reconnect
  let chat = [];
  let myTurnBefore = false;
  let keepFocus = false;
  let audio = null;
  let deadlineAt = null;
  let banks = null; // {left: [s per seat], running: seat or null} as of banksAt (Date.now())
  let banksAt = 0;
  let notes = []; // the table's own events for the log (a seat conceded): {version, seat}
  let confirming = false; // the concede button asked "really?"
  let cardFilter = null; // clicking a card on the board narrows the choices to that card

  // A choice is about a card when the card is one of its args (the notation names it there).
  const mentions = (choice, card) => Object.values(choice.args || {}).includes(card);

  const $ = (id) => document.getElementById(id);
  $("share-link").value = window.location.origin + "/t/" + tableId;
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("share-link").value); } catch (e) { $("share-link").select(); }
    $("copy-link").textContent = t("table.copied");
  });

  function send(doc) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(doc));
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + window.location.host + "/ws/" + encodeURIComponent(tableId));
    ws.addEventListener("open", () => {
      retry = 0;
      setConn(true);
      const hello = { type: "hello" };
      if (token) hello.token = token;
      if (version !== null) hello.last_version = version;
      if (unsure && token) { hello.pending_version = unsure.version; hello.pending_action = unsure.action; }
      send(hello);
    });
    ws.addEventListener("message", (event) => handle(JSON.parse(event.data)));
    ws.addEventListener("close", () => {
      if (waiting && pending) unsure = pending;
      waiting = false;
      pending = null;
      setConn(false);
      const delay = Math.min(4000, 250 * Math.pow(2, retry++));
      setTimeout(connect, delay);
    });
  }

  // While disconnected every choice is disabled (the fallback buttons; the board's playables
  // refuse with a message) and a banner says so.
  function setConn(up) {
    const box = $("conn-status");
    box.textContent = (up ? "● " : "○ ") + (up ? t("table.connected") : t("table.reconnecting"));
    box.className = "conn " + (up ? "up" : "down");
    document.body.dataset.connected = up ? "yes" : "no";
    $("offline-banner").hidden = up;
    if (view) { renderSeats(); renderBoard(); renderChoices(); }
  }

  function notice(text, kind) {
    const box = $("move-notice");
    box.hidden = !text;
    box.textContent = text || "";
    if (kind) box.dataset.kind = kind; else delete box.dataset.kind;
  }

  function refuse() {
    if (document.body.dataset.connected !== "yes") notice(t("table.refused_offline"), "offline");
    else if (waiting) notice(t("table.refused_in_flight"), "in-flight");
  }

  function addEvents(events) {
    for (const e of events) {
      if (version === null || e.version > version) logEntries.push(e);
    }
  }

  function handle(msg) {
    switch (msg.type) {
      case "sync":
        if (msg.since === 0 || version === null) logEntries = [];
        else logEntries = logEntries.filter((e) => e.version <= msg.since);
        version = msg.since;
        addEvents(msg.events);
        version = msg.version;
        view = msg.view;
        info = msg.table;
        you = msg.you;
        info.rematch = you ? you.rematch : null; // offered to the seated players only
        if (you || Tokens.host(tableId)) MyGames.remember(tableId, info.game, you ? you.seat : null);
        waiting = false;
        pending = null;
        if (msg.chat) chat = msg.chat;
        $("action-error").textContent = "";
        // a refusal said while offline or mid-move no longer holds once the table is back
        if (["offline", "in-flight"].includes($("move-notice").dataset.kind)) notice("");
        if (msg.pending && unsure && msg.pending.version === unsure.version) {
          notice(msg.pending.landed ? "" : t("table.move_not_sent"), msg.pending.landed ? null : "not-sent");
          unsure = null;
        } else if (unsure && !token) {
          unsure = null;
        }
        render();
        renderChat();
        break;
      case "update":
        if (version === null || msg.since > version) {
          send(withToken({ type: "sync", last_version: version === null ? 0 : version }));
          return;
        }
        addEvents(msg.events);
        version = Math.max(version, msg.version);
        view = msg.view;
        waiting = false;
        pending = null;
        cardFilter = null;
        render();
        break;
      case "chat":
        chat.push(msg.message);
        renderChat();
        break;
      case "rematch":
        info.rematch = msg.url;
        if (view) renderResult();
        break;
      case "presence":
        if (!view) return;
        view.seats = msg.seats;
        view.status = msg.status;
        view.deadline_in = msg.deadline_in;
        view.banks = msg.banks;
        render();
        break;
      case "conceded":
        // said to everyone; the presence after it marks the seat in the list
        notes.push({ version: msg.version, seat: msg.seat });
        if (you && msg.seat === you.seat) confirming = false;
        if (view) renderLog();
        break;
      case "ack":
        if (typeof msg.id === "string" && msg.id.startsWith("c")) { $("chat-input").value = ""; break; }
        waiting = false;
        pending = null;
        break;
      case "pong":
        break;
      case "error":
        waiting = false;
        if (msg.code === "auth.bad_token" && version === null) {
          // The token does not hold a seat here (another server or database): watch instead.
          localStorage.removeItem("fc-token-" + tableId);
          token = null;
          send({ type: "hello" });
          return;
        }
        if (String(msg.code).startsWith("chat.") || (typeof msg.id === "string" && msg.id.startsWith("c"))) {
          $("chat-error").textContent = errorText(msg.code, msg.message);
          return;
        }
        pending = null;
        showError(msg.code, msg.message);
        if (msg.code === "move.stale_version" || msg.code === "move.not_your_turn") {
          send(withToken({ type: "sync", last_version: version || 0 }));
        }
        renderChoices();
        break;
      default:
        break;
    }
  }

  function withToken(doc) {
    if (token) doc.token = token;
    return doc;
  }

  function showError(code, message) {
    $("action-error").textContent = errorText(code, message);
    $("action-error").dataset.code = code;
  }

  function act(action) {
    if (!view) return;
    if (document.body.dataset.connected !== "yes" || !ws || ws.readyState !== WebSocket.OPEN) { refuse(); return; }
    if (waiting) { refuse(); return; }
    waiting = true;
    pending = { version, action };
    // a choice made from the keyboard: the choices panel takes the focus while they are
    // redrawn, so the next Tab is in them again (not back at the top of the page)
    const active = document.activeElement;
    keepFocus = !!active && ($("choices").contains(active) || $("board").contains(active));
    notice("");
    $("action-error").textContent = "";
    delete $("action-error").dataset.code;
    send({ type: "act", token, version, action, id: nextId++ });
    renderChoices();
  }

  // -- drawing --------------------------------------------------------------------------------
  // A seat has one name everywhere on the page (Boards.playerName): the person's name or "Bot n
  // (Level)", the reader's own with "(you)" after it. Game text (the log, the end screen) gets
  // the bare name from playerName and adds "(you)" itself (boards.js seatText).
  function playerName(seat) {
    return view && view.seats[seat] ? Boards.playerName(view.seats, seat, null) : null;
  }

  function seatLabel(seat) {
    return Boards.playerName(view ? view.seats : null, seat, you ? you.seat : null);
  }

  function reader() {
    return { viewer: you ? you.seat : null, names: playerName };
  }

  function render() {
    if (!view) return;
    Boards.reader = reader();
    const status = $("table-status");
    status.textContent = t("status." + view.status);
    status.dataset.status = view.status;
    document.body.dataset.version = String(version);
    document.body.dataset.status = view.status;
    deadlineAt = view.deadline_in === null || view.deadline_in === undefined ? null : Date.now() + view.deadline_in * 1000;
    banks = view.banks || null;
    banksAt = Date.now();
    renderWho();
    renderJoin();
    renderSeats();
    renderBanner();
    renderBoard();
    renderChoices();
    renderLog();
    renderResult();
    renderTitle();
  }

  // The tab says when it is your turn; an optional beep (off by default, remembered) too.
  function myTurn() {
    return !!(view && you && view.status === "playing" && !view.terminal && view.current_player === you.seat && view.choices.length);
  }

  function renderTitle() {
    const game = gameName(info.game);
    const mine = myTurn();
    document.title = mine ? t("table.title_your_turn", { game }) : game + " · " + t("app.name");
    if (mine && !myTurnBefore && $("sound-toggle").checked) beep();
    myTurnBefore = mine;
  }

  function beep() {
    try {
      audio = audio || new AudioContext();
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.08, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.25);
      document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
    } catch (e) { /* no audio on this machine: the title still says it */ }
  }

  $("sound-toggle").checked = localStorage.getItem("fc-sound") === "on";
  $("sound-toggle").addEventListener("change", () => {
    localStorage.setItem("fc-sound", $("sound-toggle").checked ? "on" : "off");
    if ($("sound-toggle").checked && !audio) { try { audio = new AudioContext(); } catch (e) { audio = null; } }
  });

  // The invite block (link, join code, privacy) stays open while a person's seat is free and
  // folds once every seat is taken (a table against bots folds from the start); it is opened
  // or folded only when that changes, so a person who opens it keeps it open.
  let inviteWanted = null;
  function renderInvite() {
    const wanted = view.status === "waiting" && view.seats.some((s) => s.kind === "human" && !s.claimed);
    if (wanted !== inviteWanted) { $("invite").open = wanted; inviteWanted = wanted; }
  }

  $("dev-switch").hidden = !Dev.on();
  $("dev-toggle").addEventListener("change", () => { Dev.set($("dev-toggle").checked); if (view) renderBoard(); });

  function renderWho() {
    renderInvite();
    const who = $("who-am-i");
    who.replaceChildren(...(you ? [t("table.you_are", { n: you.seat + 1 }), ...(you.name ? [" · ", bdi(you.name)] : [])]
      : [t("table.spectating")]));
    // Seated, the seat list already marks "(you)": the line stays for screen readers only.
    who.classList.toggle("visually-hidden", !!you);
    const mine = you && view.seats[you.seat];
    $("away-panel").hidden = !(mine && mine.away);
    renderConcede(mine);
    const host = Tokens.host(tableId);
    $("host-panel").hidden = !(host && view.status === "waiting");
  }

  function renderJoin() {
    const panel = $("join-panel");
    const free = view.seats.filter((s) => s.kind === "human" && !s.claimed);
    panel.hidden = !!you || view.status !== "waiting" || free.length === 0;
    if (panel.hidden) return;
    const nameBox = $("join-name");
    if (!nameBox.value) nameBox.value = Tokens.name();
    const list = clear($("join-seats"));
    for (const s of free) {
      list.appendChild(el("button", { type: "button", class: "take-seat", "data-seat": s.seat,
        onclick: () => join(s.seat) }, t("table.take_seat", { n: s.seat + 1 })));
    }
  }

  async function join(seat) {
    const name = $("join-name").value.trim();
    if (name) Tokens.setName(name);
    try {
      const joined = await api("POST", "/api/tables/" + encodeURIComponent(tableId) + "/join", { seat, name: name || undefined });
      Tokens.setSeat(tableId, joined.token);
      token = joined.token;
      version = null;
      if (ws) ws.close(); // reconnect with the token
    } catch (e) {
      $("join-error").textContent = e.code === "table.seat_taken" ? t("error.table.seat_taken") : e.message;
    }
  }

  $("start-now").addEventListener("click", async () => {
    try {
      await api("POST", "/api/tables/" + encodeURIComponent(tableId) + "/start", { token: Tokens.host(tableId) });
    } catch (e) { showError(e.code, e.message); }
  });
  $("back-button").addEventListener("click", () => send(withToken({ type: "back" })));

  // Each seat: a dot with a symbol (not colour only) for who is connected, and the turn timer
  // counting down on the seat whose clock runs.
  function presenceOf(s) {
    if (s.kind === "bot") return ["bot", "⚙", t("table.presence_bot")];
    if (!s.claimed) return ["open", "◌", t("table.open_seat")];
    const here = s.connected && !(you && you.seat === s.seat && document.body.dataset.connected !== "yes");
    return here ? ["on", "●", t("table.connected")] : ["off", "○", t("table.offline")];
  }

  function renderSeats() {
    const list = clear($("seats"));
    for (const s of view.seats) {
      const [state, symbol, words] = presenceOf(s);
      const marks = [];
      const acting = view.current_player === s.seat && !view.terminal;
      if (acting) marks.push(el("span", { class: "mark turn" }, "▶"));
      if (s.kind === "human" && s.claimed && !s.connected) marks.push(el("span", { class: "mark off" }, t("table.offline")));
      if (s.away) marks.push(el("span", { class: "mark away" }, t("table.away")));
      if (s.conceded) marks.push(el("span", { class: "mark conceded" }, t("table.conceded_mark")));
      if (banks && s.kind === "human") {
        marks.push(el("span", { class: "mark seat-clock seat-bank" + (banks.running === s.seat ? " running" : ""), "data-seat": s.seat }));
      } else if (acting && deadlineAt !== null) {
        marks.push(el("span", { class: "mark seat-clock", "data-seat": s.seat }));
      }
      list.appendChild(el("li", {
        class: "seat" + (you && you.seat === s.seat ? " me" : "") + (acting ? " current" : ""),
        "data-seat": s.seat, "data-presence": state,
      }, el("div", { class: "seat-line" }, el("span", { class: "presence " + state, title: words, "aria-label": words, role: "img" }, symbol), " ",
        el("span", { class: "seat-label", title: seatLabel(s.seat) }, seatLabel(s.seat)), marks), seatFacts(s.seat)));
    }
    tick();
  }

  // Under the name: the seat's score and what this reader's view shows of its colour, animal or
  // role (the game's board says, from the observation the server sent this seat, so never more).
  function seatFacts(seat) {
    const known = Boards.seatInfo(info.game, view.observation, seat, { seat: you ? you.seat : null, text: Boards.textFor(reader()) });
    if (!known) return null;
    const facts = (known.facts || []).filter(Boolean);
    const hasScore = known.score !== null && known.score !== undefined;
    if (!facts.length && !hasScore) return null;
    return el("div", { class: "seat-facts", "data-seat": seat },
      hasScore ? el("span", { class: "seat-score", "data-score": known.score, title: t("table.score_label", { n: known.score }) },
        t("table.score", { n: known.score })) : null,
      facts.map((f) => el("span", { class: "seat-fact" }, f)));
  }

  function renderBanner() {
    const banner = $("turn-banner");
    let text;
    if (view.status === "waiting") text = t("table.waiting_players");
    else if (view.terminal) text = t("table.game_over");
    else if (view.current_player === null) text = t("table.chance");
    else if (you && view.current_player === you.seat) text = t("table.your_turn");
    else text = t("table.waiting_for", { who: seatLabel(view.current_player) });
    banner.textContent = text;
    banner.className = "turn-banner" + (you && view.current_player === you.seat && !view.terminal ? " mine" : "");
    tick();
  }

  // A bank as m:ss (h:mm:ss from an hour); the running one is counted down here each second
  // from the server's reading, which every update and presence renews.
  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const two = (n) => String(n).padStart(2, "0");
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return h ? h + ":" + two(m) + ":" + two(s % 60) : m + ":" + two(s % 60);
  }

  function bankLeft(seat) {
    if (!banks) return null;
    const spent = banks.running === seat ? (Date.now() - banksAt) / 1000 : 0;
    return Math.max(0, banks.left[seat] - spent);
  }

  function tickBanks() {
    document.querySelectorAll("#seats .seat-bank").forEach((n) => {
      const left = bankLeft(Number(n.dataset.seat));
      if (left === null) return;
      const text = clockText(left);
      n.textContent = t("table.bank", { time: text });
      n.title = t("table.bank_label", { time: text });
      n.dataset.left = String(Math.ceil(left));
      n.classList.toggle("low", left <= 30);
    });
  }

  function tick() {
    tickBanks();
    const banner = $("turn-banner");
    let clock = banner.querySelector(".clock");
    const seatClocks = document.querySelectorAll("#seats .seat-clock:not(.seat-bank)");
    if (deadlineAt === null) { if (clock) clock.remove(); seatClocks.forEach((n) => n.remove()); return; }
    const left = Math.max(0, Math.ceil((deadlineAt - Date.now()) / 1000));
    if (!clock) { clock = el("span", { class: "clock", "aria-hidden": "true" }); banner.appendChild(clock); }
    const running = banks && banks.running !== null ? bankLeft(banks.running) : null;
    clock.textContent = " · " + (running !== null && running <= (deadlineAt - Date.now()) / 1000 + 1
      ? t("table.bank", { time: clockText(running) }) : t("table.time_left", { s: left }));
    seatClocks.forEach((n) => {
      n.textContent = t("table.time_left", { s: left });
      n.classList.toggle("low", left <= 10);
    });
  }
  setInterval(tick, 1000);

  function renderLastMove(events) {
    LastMove.caption($("last-move"), events, Boards.textFor(reader()), view.status === "waiting");
  }

  function renderBoard() {
    const mine = you ? you.seat : null;
    Boards.setFrame(info.game, view.observation);
    const recent = LastMove.of(logEntries);
    renderLastMove(recent);
    const ctx = {
      seat: mine,
      seats: view.seats,
      seatLabel,
      choices: view.choices,
      act,
      refuse,
      disabled: waiting || document.body.dataset.connected !== "yes",
      recent,
      text: Boards.textFor(reader()),
      overrides: info.overrides || {},
    };
    const board = $("board");
    const before = Motion.snapshot(board);
    clear(board);
    board.appendChild(Boards.render(info.game, view.observation, ctx));
    Motion.play(board, before);
  }

  function renderChoices() {
    const box = clear($("choices"));
    if (!view) return;
    $("choices-panel").classList.toggle("active", view.choices.length > 0);
    const gaveUp = !!(you && view.seats[you.seat] && view.seats[you.seat].conceded);
    $("choices-panel").hidden = !you || view.status === "finished" || gaveUp;
    $("skip-to-choices").hidden = $("choices-panel").hidden;
    let list = view.choices;
    if (cardFilter) {
      const narrowed = list.filter((c) => mentions(c, cardFilter));
      if (narrowed.length) {
        list = narrowed;
        box.appendChild(el("button", { type: "button", class: "filter-chip", onclick: () => { cardFilter = null; renderChoices(); } },
          cardFilter, " ✕"));
      }
    }
    box.appendChild(Boards.choices(list, act, waiting || document.body.dataset.connected !== "yes"));
    if (keepFocus && !$("choices-panel").hidden && !$("choices-panel").contains(document.activeElement)) {
      $("choices-panel").focus({ preventScroll: true });
    }
    if (keepFocus && view.choices.length && !waiting) keepFocus = false;
    document.querySelectorAll("#board [data-card]").forEach((n) => n.classList.toggle("picked", n.dataset.card === cardFilter));
  }

  $("board").addEventListener("click", (event) => {
    const card = event.target.closest("[data-card]");
    if (!card || !view) return;
    const name = card.dataset.card;
    if (!view.choices.some((c) => mentions(c, name))) return;
    cardFilter = cardFilter === name ? null : name;
    renderChoices();
  });

  function renderLog() {
    const list = clear($("log"));
    const text = Boards.textFor(reader());
    // the game's events, and the table's own (a concession) after the version they came at
    const lines = logEntries.filter((x) => x.event).map((e) => ({ version: e.version, e }))
      .concat(notes.map((n) => ({ version: n.version + 0.5, n })))
      .sort((a, b) => a.version - b.version);
    for (const line of lines.slice(-200)) {
      if (line.e) {
        list.appendChild(el("li", { class: "log-line", "data-version": line.e.version, "data-key": line.e.event.key }, text.event(line.e.event)));
      } else {
        list.appendChild(el("li", { class: "log-line note conceded", "data-version": line.n.version, "data-key": "table.conceded_event" },
          t("table.conceded_event", { who: seatLabel(line.n.seat) })));
      }
    }
    list.scrollTop = list.scrollHeight;
  }

  // Concede: under the seats, for a seated person while the game is on; a second click
  // confirms (or Cancel), so a slip of the finger gives nothing away.
  const concedeBox = el("div", { id: "concede-box", class: "concede", hidden: "" });
  document.querySelector(".seats-panel").appendChild(concedeBox);
  function renderConcede(mine) {
    const open = !!(mine && view.status === "playing" && !view.terminal);
    concedeBox.hidden = !open;
    if (!open) { confirming = false; clear(concedeBox); return; }
    if (mine.conceded) {
      concedeBox.replaceChildren(el("p", { class: "help", id: "conceded-you" }, t("table.conceded_you")));
      return;
    }
    if (!confirming) {
      concedeBox.replaceChildren(el("button", { type: "button", id: "concede-button",
        onclick: () => { confirming = true; renderConcede(view.seats[you.seat]); $("concede-cancel").focus(); } }, t("table.concede")));
      return;
    }
    concedeBox.replaceChildren(
      el("p", { id: "concede-question", role: "alert" }, t("table.concede_confirm")),
      el("button", { type: "button", id: "concede-yes", class: "danger", onclick: () => {
        if (document.body.dataset.connected !== "yes") { notice(t("table.refused_offline"), "offline"); return; }
        send({ type: "concede", token, id: "k" + nextId++ });
      } }, t("table.concede_yes")), " ",
      el("button", { type: "button", id: "concede-cancel", onclick: () => {
        confirming = false; renderConcede(view.seats[you.seat]); $("concede-button").focus();
      } }, t("table.concede_cancel")));
  }

  // The end screen sits at the top of the board panel, in view without scrolling, with the
  // replay link and the rematch: the first player to ask makes the new table (same game,
  // players, ruleset and seat kinds); the others' pages then offer "rematch: join".
  let resultShown = false;
  function renderResult() {
    const box = $("result");
    document.body.classList.toggle("finished", !!view.result);
    if (!view.result) { box.hidden = true; resultShown = false; return; }
    box.hidden = false;
    clear(box);
    box.appendChild(Boards.finalScores(view.result, reader(), seatLabel));
    const links = el("p", { class: "result-links" },
      el("a", { href: "/t/" + tableId + "/replay", id: "replay-link" }, t("table.replay")));
    if (info.rematch) {
      links.appendChild(el("a", { href: info.rematch, id: "rematch-join", class: "rematch-join", onclick: (e) => { if (you) { e.preventDefault(); rematch(); } } },
        t("table.rematch_join")));
    } else if (you) {
      links.appendChild(el("button", { type: "button", id: "rematch-button", class: "primary", onclick: rematch }, t("table.rematch")));
    }
    links.appendChild(el("span", { class: "error", id: "rematch-error", role: "alert" }));
    box.appendChild(links);
    if (!resultShown) {
      resultShown = true;
      window.scrollTo({ top: 0 });
      box.scrollIntoView({ block: "nearest" });
    }
  }

  async function rematch() {
    try {
      const made = await api("POST", "/api/tables/" + encodeURIComponent(tableId) + "/rematch", { token });
      Tokens.setSeat(made.id, made.token);
      if (made.host_token) Tokens.setHost(made.id, made.host_token);
      window.location.href = made.url;
    } catch (e) {
      if (info.rematch && e.code && e.code.startsWith("table.")) { window.location.href = info.rematch; return; }
      $("rematch-error").textContent = errorText(e.code, e.message);
    }
  }

  // -- chat: seated players write, everyone reads ----------------------------------------------
  function renderChat() {
    Chat.render($("chat-log"), chat, seatLabel);
    $("chat-form").hidden = !you;
    $("chat-readonly").hidden = !!you;
  }

  function sendChat(doc) {
    $("chat-error").textContent = "";
    if (!you) return;
    if (document.body.dataset.connected !== "yes") { $("chat-error").textContent = t("table.refused_offline"); return; }
    send({ type: "chat", token, id: "c" + nextId++, ...doc });
  }

  for (const key of Chat.PHRASES) {
    $("chat-phrases").appendChild(el("button", { type: "button", class: "chat-phrase", "data-phrase": key,
      onclick: () => sendChat({ phrase: key }) }, t("chat.phrase." + key)));
  }
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    sendChat({ text });
  });

  connect();
})();
