// The post-game questionnaire on a finished table's page (fieldcraft/server/feedback.py).
// It is its own file, not part of table.js, so that the table's page knows nothing of it: it
// waits for the page to mark the game finished (table.js puts the "finished" class on <body>),
// asks the server whether this table asks at all, and only then draws the form, for a seated
// person only (their seat token is what the answer is sent with; spectators are not asked).
(function () {
  "use strict";
  const page = document.getElementById("table-page");
  if (!page) return;
  const tableId = page.dataset.table;
  const doneKey = "fc-feedback-" + tableId;
  const base = "/api/tables/" + encodeURIComponent(tableId) + "/feedback";
  let state = "idle"; // idle | asking | shown
  // Set through the CSSOM (common.js el()), which the pages' style-src 'self' allows; the
  // stylesheet is shared with every page and not this file's to change.
  const BOX = "border:1px solid var(--line);border-radius:6px;margin:.4rem 0;padding:.3rem .6rem";
  const ROW = "display:flex;flex-wrap:wrap;gap:.2rem .9rem";

  function thanks(panel, key) {
    clear(panel);
    panel.append(el("h2", {}, t("feedback.title")), el("p", { id: "feedback-thanks" }, t(key)));
  }

  function radios(name, values, labels) {
    const row = el("div", { class: "feedback-row", style: ROW });
    values.forEach((value, i) => {
      const id = "fb-" + name + "-" + value;
      row.append(el("label", { class: "check", for: id, style: "white-space:nowrap" },
        el("input", { type: "radio", name, value: String(value), id }), " " + labels[i]));
    });
    return row;
  }

  function scale(key) {
    return el("fieldset", { id: "fb-" + key, style: BOX },
      el("legend", {}, t("feedback." + key)),
      radios(key, [1, 2, 3, 4, 5], ["1", "2", "3", "4", "5"]),
      el("p", { class: "help" }, t("feedback.scale")));
  }

  function render(questions, token) {
    const panel = el("section", { class: "panel", id: "feedback-panel" });
    const side = document.querySelector(".side-panel") || page;
    side.prepend(panel);
    if (localStorage.getItem(doneKey) === "sent") { thanks(panel, "feedback.thanks"); return; }
    const form = el("form", { id: "feedback-form", autocomplete: "off" });
    const error = el("p", { class: "error", id: "feedback-error", role: "alert" });
    const picks = el("div", { class: "feedback-row", id: "fb-confusing-list", style: "display:flex;flex-direction:column;gap:.15rem" });
    for (const choice of questions.confusing) {
      const id = "fb-c-" + choice.id.replace(/[^a-zA-Z0-9_-]/g, "_");
      picks.append(el("label", { class: "check", for: id },
        el("input", { type: "checkbox", name: "confusing", value: choice.id, id }), " ", bdi(choice.label)));
    }
    picks.addEventListener("change", () => {
      const boxes = [...picks.querySelectorAll("input")];
      const full = boxes.filter((b) => b.checked).length >= questions.confusing_max;
      for (const b of boxes) b.disabled = full && !b.checked;
    });
    const comment = el("textarea", { id: "fb-comment", style: "width:100%;box-sizing:border-box", maxlength: String(questions.comment_max), rows: "3",
      "aria-label": t("feedback.comment", { n: questions.comment_max }) });
    form.append(
      el("p", { class: "help" }, t("feedback.intro")),
      ...questions.scales.filter((k) => k !== "close").map(scale),
      el("fieldset", { id: "fb-length", style: BOX }, el("legend", {}, t("feedback.length")),
        radios("length", questions.lengths, questions.lengths.map((v) => t("feedback.length." + v)))),
      ...questions.scales.filter((k) => k === "close").map(scale),
      el("fieldset", { id: "fb-confusing", style: BOX },
        el("legend", {}, t("feedback.confusing", { n: questions.confusing_max })), picks),
      el("label", { for: "fb-comment", style: "display:block;margin-top:.4rem" }, t("feedback.comment", { n: questions.comment_max })),
      comment,
      el("div", {}, el("button", { type: "submit", id: "feedback-send" }, t("feedback.send"))),
      error);
    panel.append(el("h2", {}, t("feedback.title")), form);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const picked = (name) => { const x = form.querySelector(`input[name="${name}"]:checked`); return x ? x.value : null; };
      const answers = {};
      for (const key of questions.scales) answers[key] = picked(key) === null ? null : Number(picked(key));
      answers.length = picked("length");
      if (Object.values(answers).some((v) => v === null)) { error.textContent = t("feedback.required"); return; }
      answers.confusing = [...picks.querySelectorAll("input:checked")].map((b) => b.value);
      answers.comment = comment.value;
      const send = form.querySelector("#feedback-send");
      send.disabled = true;
      error.textContent = "";
      try {
        await api("POST", base, { token, answers, lang: document.body.dataset.lang });
        localStorage.setItem(doneKey, "sent");
        thanks(panel, "feedback.thanks");
      } catch (e) {
        if (e.code === "feedback.already_answered") {
          localStorage.setItem(doneKey, "sent");
          thanks(panel, "error.feedback.already_answered");
          return;
        }
        send.disabled = false;
        error.textContent = errorText(e.code, e.message);
      }
    });
  }

  async function maybeAsk() {
    if (state !== "idle" || !document.body.classList.contains("finished")) return;
    const token = Tokens.seat(tableId);
    if (!token) return;
    state = "asking";
    let form;
    try {
      form = await api("GET", base + "?lang=" + encodeURIComponent(document.body.dataset.lang || "en"));
    } catch (e) {
      state = "idle";
      return;
    }
    if (!form.on) { state = "shown"; return; }
    if (!form.finished) { state = "idle"; return; }
    state = "shown";
    render(form.questions, token);
  }

  new MutationObserver(maybeAsk).observe(document.body, { attributes: true, attributeFilter: ["class"] });
  document.addEventListener("DOMContentLoaded", maybeAsk);
  maybeAsk();
})();
