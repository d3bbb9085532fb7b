/* Practice questions and flashcards: progressive enhancement of the static HTML the build renders.
 * All authored text is inserted with textContent (never innerHTML), so it cannot inject markup.
 * Progress lives in localStorage per page (set) and survives reloads and instant navigation. */
(function () {
  "use strict";

  var STORE = "dpguide:v1:";
  /* the vendored scripts (tools/vendor_js.py) sit beside this file: loaded only by a page that needs them */
  var VENDOR = new URL("vendor/", document.currentScript ? document.currentScript.src : location.href).href;
  var loading = {};

  function vendor(file) {
    if (!loading[file]) {
      loading[file] = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = VENDOR + file;
        script.onload = resolve;
        script.onerror = function () { reject(new Error("could not load " + script.src)); };
        document.head.appendChild(script);
      });
    }
    return loading[file];
  }

  /* Material draws a diagram with the global `mermaid` (initialize, then render), and fetches it from
     a CDN when there is none. This stand-in fetches the vendored copy instead, on the first diagram
     of the visit: a page without one never loads its 2.7 MB. */
  if (typeof window.mermaid === "undefined") {
    var settings = {};
    window.mermaid = {
      initialize: function (options) { settings = options; },
      render: function (id, text) {
        return vendor("mermaid.min.js").then(function () {
          if (!window.mermaid.dpgInitialized) { window.mermaid.initialize(settings); window.mermaid.dpgInitialized = true; }
          return window.mermaid.render(id, text);
        });
      }
    };
  }

  function load(key, fallback) {
    try { var v = localStorage.getItem(STORE + key); return v ? JSON.parse(v) : fallback; }
    catch (e) { return fallback; }
  }
  function save(key, value) {
    try { localStorage.setItem(STORE + key, JSON.stringify(value)); } catch (e) { /* storage full or off */ }
  }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "class") node.className = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  /* authored text may hold `code` spans: build them as nodes, never as HTML */
  function richText(node, text) {
    String(text).split(/(`[^`]+`)/).forEach(function (part) {
      if (part.length > 2 && part[0] === "`" && part[part.length - 1] === "`") {
        node.appendChild(el("code", {}, part.slice(1, -1)));
      } else if (part) {
        node.appendChild(document.createTextNode(part));
      }
    });
    return node;
  }
  function setKey() { return "set:" + location.pathname; }

  /* ------------------------------------------------------------------ progress per set */
  function progress() { return load(setKey(), {}); }
  function record(id, state) { var p = progress(); p[id] = state; save(setKey(), p); updateScore(); }

  function updateScore() {
    var box = document.querySelector(".dpg-set-score");
    if (!box) return;
    var quizzes = document.querySelectorAll(".dpg-quiz");
    var p = progress(), answered = 0, first = 0, right = 0;
    quizzes.forEach(function (q) {
      var s = p[q.dataset.quizId];
      if (s && s.done) { answered += 1; if (s.firstTry) first += 1; if (s.correct) right += 1; }
    });
    save("total:" + location.pathname, quizzes.length);   /* the Practice index shows it per set */
    box.querySelector(".dpg-score-text").textContent = "Progress: " + answered + " of " + quizzes.length +
      " answered, " + right + " right (" + first + " on the first try).";
  }

  /* the build writes the bar above a set's first question (so nothing moves when it is filled in);
     a page rendered without it gets one here */
  function scoreBar(container) {
    var bar = container.querySelector(".dpg-set-score");
    if (bar && bar.dataset.init === "1") return;
    var first = container.querySelector(".dpg-quiz");
    if (!bar && !first) return;
    if (!bar) {
      bar = el("div", { "class": "dpg-set-score", "role": "status" });
      bar.appendChild(el("span", { "class": "dpg-score-text" }));
      bar.appendChild(el("button", { "type": "button", "class": "md-button dpg-reset" }, "Reset progress"));
      first.parentNode.insertBefore(bar, first);
    }
    bar.dataset.init = "1";
    var reset = bar.querySelector(".dpg-reset");
    reset.addEventListener("click", function () {
      if (!window.confirm("Forget your answers to every question on this page?")) return;
      save(setKey(), {});
      document.querySelectorAll(".dpg-quiz").forEach(function (q) {
        q.dataset.init = ""; q.querySelector(".dpg-quiz-widget").textContent = "";
        q.classList.remove("dpg-solved", "dpg-failed");
        var code = q.querySelector(".dpg-quiz-code code");
        if (code && q.dataset.codeHtml) code.innerHTML = q.dataset.codeHtml;
      });
      init();
    });
  }

  /* the Practice index: each set's progress, as kept in this browser by the set's own page */
  function practiceIndex(list) {
    list.querySelectorAll("a[href]").forEach(function (a) {
      var path = new URL(a.getAttribute("href"), location.href).pathname;
      if (a.parentNode.querySelector(".dpg-set-progress[data-for='" + path + "']")) return;
      var p = load("set:" + path, {}), total = load("total:" + path, 0), answered = 0, right = 0;
      Object.keys(p).forEach(function (id) { if (p[id] && p[id].done) { answered += 1; if (p[id].correct) right += 1; } });
      var text = total ? answered + " of " + total + " answered, " + right + " right" : "not started";
      var note = el("span", { "class": "dpg-set-progress", "data-for": path }, " (" + text + ")");
      a.parentNode.insertBefore(note, a.nextSibling);
    });
  }

  function feedback(widget) {
    var node = widget.querySelector(".dpg-feedback");
    if (!node) { node = el("div", { "class": "dpg-feedback", "aria-live": "polite" }); widget.appendChild(node); }
    return node;
  }
  /* a question remembers its last feedback, so a reload shows what the learner saw */
  function tell(node, state, id, kind, lines) {
    state.fb = { kind: kind, lines: lines };
    record(id, state);
    say(node, kind, lines);
  }
  function retryButton(quiz, data, widget) {
    var again = el("button", { "type": "button", "class": "md-button dpg-retry" }, "Try this question again");
    again.addEventListener("click", function () {
      var p = progress(); delete p[data.id]; save(setKey(), p);
      quiz.classList.remove("dpg-solved", "dpg-failed");
      var code = quiz.querySelector(".dpg-quiz-code code");
      if (code && quiz.dataset.codeHtml) code.innerHTML = quiz.dataset.codeHtml;   /* blanks back to empty */
      widget.textContent = "";
      if (data.type === "choice") initChoice(quiz, data, widget); else initFill(quiz, data, widget);
      updateScore();
    });
    widget.appendChild(again);
  }
  function say(node, kind, lines) {
    node.textContent = "";
    node.className = "dpg-feedback dpg-feedback-" + kind;
    lines.forEach(function (line) { if (line) node.appendChild(richText(el("p"), line)); });
  }

  /* ------------------------------------------------------------------ multiple choice */
  function initChoice(quiz, data, widget) {
    var state = progress()[data.id] || { attempts: 0 };
    var group = el("div", { "role": "radiogroup", "aria-label": "Options", "class": "dpg-choices" });
    var chosen = null;
    var buttons = data.options.map(function (option, index) {
      var b = el("button", { "type": "button", "class": "dpg-choice", "role": "radio", "aria-checked": "false",
                             "data-index": String(index) });
      b.appendChild(el("span", { "class": "dpg-letter" }, "ABCDEFGHIJ"[index] + "."));
      richText(b, " " + option.text);
      b.tabIndex = index === 0 ? 0 : -1;               /* one tab stop; arrows move within (ARIA radio group) */
      b.addEventListener("click", function () { choose(index); });
      group.appendChild(b);
      return b;
    });
    function choose(index) {
      chosen = index;
      buttons.forEach(function (o, i) {
        o.setAttribute("aria-checked", i === index ? "true" : "false");
        o.tabIndex = i === index ? 0 : -1;
      });
    }
    group.addEventListener("keydown", function (event) {
      var step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
      var at = buttons.indexOf(document.activeElement);
      if (!step || at < 0 || buttons[at].disabled) return;
      event.preventDefault();
      var next = (at + step + buttons.length) % buttons.length;
      choose(next);
      buttons[next].focus();
    });
    widget.appendChild(group);
    var check = el("button", { "type": "button", "class": "md-button md-button--primary dpg-check" }, "Check answer");
    widget.appendChild(check);
    var fb = feedback(widget);
    function finish(correct) {
      buttons.forEach(function (b) { b.disabled = true; });
      check.disabled = true;
      quiz.classList.add(correct ? "dpg-solved" : "dpg-failed");
      retryButton(quiz, data, widget);
    }
    check.addEventListener("click", function () {
      if (chosen === null) { say(fb, "info", ["Choose an option first."]); return; }
      var option = data.options[chosen];
      state.attempts += 1;
      state.wrong = state.wrong || [];
      if (option.correct) {
        state.done = true; state.correct = true; state.firstTry = state.attempts === 1;
        var next = data.proven ? " Open the solution below for the steps and the run that proves it."
                               : " Open the solution below for the steps and the reasons.";
        tell(fb, state, data.id, "right", [(state.firstTry ? "Right, on the first try." : "Right, on try " + state.attempts + ".") + next]);
        finish(true);
      } else {
        var lines = ["Not quite: " + option.why];
        if (option.error) lines.push("The build ran this option's code (with a check of its result where it raises nothing), and it fails with: `" + option.error + "`");
        if (state.attempts >= 1) lines.push("Hint: " + data.hint);
        if (state.wrong.indexOf(chosen) < 0) state.wrong.push(chosen);
        buttons[chosen].classList.add("dpg-wrong");
        tell(fb, state, data.id, "wrong", lines);
      }
    });
    (state.wrong || []).forEach(function (i) { if (buttons[i]) buttons[i].classList.add("dpg-wrong"); });
    if (state.done) {
      choose(data.options.findIndex(function (o) { return o.correct; }));
      say(fb, "right", (state.fb && state.fb.lines) || ["Answered."]);
      finish(state.correct);
    } else if (state.fb) {
      say(fb, state.fb.kind, state.fb.lines);       /* the last wrong answer's explanation, after a reload */
    }
  }

  /* ------------------------------------------------------------------ fill in the blanks */
  function initFill(quiz, data, widget) {
    var state = progress()[data.id] || { attempts: 0 };
    var code = quiz.querySelector(".dpg-quiz-code code");
    if (!quiz.dataset.codeHtml) quiz.dataset.codeHtml = code.innerHTML;
    var filled = {}, selectedChip = null, selectedSlot = null;
    var slots = [];
    code.querySelectorAll(".dpg-blank").forEach(function (span) {
      var n = span.dataset.blank;
      var slot = el("button", { "type": "button", "class": "dpg-slot", "data-blank": n,
                                "aria-label": "Blank " + n + ", empty" }, "[" + n + "]");
      span.replaceWith(slot);
      slots.push(slot);
    });
    var bank = el("div", { "class": "dpg-bank", "role": "group", "aria-label": "Options to place in the blanks" });
    var chips = data.bank.map(function (text) {
      var chip = el("button", { "type": "button", "class": "dpg-chip", "draggable": "true", "aria-pressed": "false" }, text);
      chip.addEventListener("click", function () {
        if (selectedSlot) { place(selectedSlot, text); selectedSlot = null; return; }
        selectedChip = selectedChip === chip ? null : chip;
        chips.forEach(function (c) { c.setAttribute("aria-pressed", c === selectedChip ? "true" : "false"); });
      });
      chip.addEventListener("dragstart", function (ev) { ev.dataTransfer.setData("text/plain", text); });
      bank.appendChild(chip);
      return chip;
    });
    function place(slot, text) {
      var n = slot.dataset.blank;
      filled[n] = text;
      slot.textContent = text;
      slot.classList.add("dpg-filled");
      slot.classList.remove("dpg-wrong", "dpg-selected");
      slot.setAttribute("aria-label", "Blank " + n + ": " + text);
      selectedChip = null;
      chips.forEach(function (c) { c.setAttribute("aria-pressed", "false"); });
    }
    slots.forEach(function (slot) {
      slot.addEventListener("click", function () {
        if (selectedChip) { place(slot, selectedChip.textContent); return; }
        selectedSlot = selectedSlot === slot ? null : slot;
        slots.forEach(function (s) { s.classList.toggle("dpg-selected", s === selectedSlot); });
      });
      slot.addEventListener("dragover", function (ev) { ev.preventDefault(); });
      slot.addEventListener("drop", function (ev) { ev.preventDefault(); place(slot, ev.dataTransfer.getData("text/plain")); });
    });
    widget.appendChild(el("p", { "class": "dpg-instructions" },
      "Pick an option, then a blank (or a blank, then an option); you can also drag options onto blanks."));
    widget.appendChild(bank);
    var attemptsNode = el("p", { "class": "dpg-attempts" });
    widget.appendChild(attemptsNode);
    var check = el("button", { "type": "button", "class": "md-button md-button--primary dpg-check" }, "Check");
    widget.appendChild(check);
    var fb = feedback(widget);
    function showAttempts() { attemptsNode.textContent = "Attempts left: " + Math.max(0, data.attempts - state.attempts); }
    function finish(correct) {
      slots.concat(chips).forEach(function (b) { b.disabled = true; });
      check.disabled = true;
      quiz.classList.add(correct ? "dpg-solved" : "dpg-failed");
      retryButton(quiz, data, widget);
    }
    function worked() {
      slots.forEach(function (slot) { place(slot, data.answers[slot.dataset.blank]); });
      quiz.querySelector(".dpg-quiz-solution").open = true;
    }
    check.addEventListener("click", function () {
      var wrong = slots.filter(function (s) { return filled[s.dataset.blank] !== data.answers[s.dataset.blank]; });
      if (slots.some(function (s) { return !filled[s.dataset.blank]; })) {
        say(fb, "info", ["Fill every blank first."]); return;
      }
      state.attempts += 1;
      state.filled = Object.assign({}, filled);
      if (!wrong.length) {
        state.done = true; state.correct = true; state.firstTry = state.attempts === 1;
        tell(fb, state, data.id, "right", [(state.firstTry ? "Right, on the first try." : "Right, on try " + state.attempts + ".") +
                                           " The solution below shows the completed code really running."]);
        showAttempts(); finish(true); return;
      }
      wrong.forEach(function (s) { s.classList.add("dpg-wrong"); });
      var names = wrong.map(function (s) { return "[" + s.dataset.blank + "]"; }).join(", ");
      var why = wrong.map(function (s) {              /* what the code really did with the learner's choice */
        var item = filled[s.dataset.blank], seen = (data.outcomes || {})[s.dataset.blank] || {};
        return seen[item] ? "With `" + item + "` in [" + s.dataset.blank + "], the code " + seen[item] : "";
      });
      if (state.attempts >= data.attempts) {
        state.done = true; state.correct = false; state.firstTry = false;
        tell(fb, state, data.id, "wrong", [(wrong.length === 1 ? "Blank " + names + " was" : "Blanks " + names + " were") + " wrong and no attempts are left. The worked answer is filled in and the solution is open below."].concat(why));
        showAttempts(); worked(); finish(false); return;
      }
      var unrun = wrong.every(function (s) { return !Object.keys((data.outcomes || {})[s.dataset.blank] || {}).length; });
      if (unrun) why.push("The build did not run this question's other choices; the solution explains them.");
      tell(fb, state, data.id, "wrong", [(wrong.length === 1 ? "Wrong blank: " : "Wrong blanks: ") + names + "."].concat(why, ["Hint: " + data.hint]));
      showAttempts();
    });
    showAttempts();
    if (state.done) {
      worked();
      say(fb, state.correct ? "right" : "wrong", (state.fb && state.fb.lines) || [state.correct ? "Answered right." : "No attempts left; the worked answer is shown."]);
      finish(state.correct);
    } else if (state.filled) {                         /* the learner's last try and what it did, after a reload */
      slots.forEach(function (slot) {
        var item = state.filled[slot.dataset.blank];
        if (item) place(slot, item);
        if (item && item !== data.answers[slot.dataset.blank]) slot.classList.add("dpg-wrong");
      });
      if (state.fb) say(fb, state.fb.kind, state.fb.lines);
    }
  }

  /* ------------------------------------------------------------------ flashcards: one card's faces */
  function cardView() {
    var v = {
      card: el("button", { "type": "button", "class": "dpg-card", "aria-live": "polite" }),
      face: el("span", { "class": "dpg-card-face" }),
      side: el("span", { "class": "dpg-card-side" }),
      link: el("a", { "class": "dpg-card-link" }, "Read the lesson"),
      proofBox: el("div", { "class": "dpg-card-proof-box" })
    };
    v.card.appendChild(v.side); v.card.appendChild(v.face);
    v.show = function (c, flipped) {
      v.face.textContent = "";
      richText(v.face, flipped ? c.back : c.front);
      v.side.textContent = flipped ? "Back" : "Front";
      v.card.setAttribute("aria-label", (flipped ? "Back: " + c.back : "Front: " + c.front) + ". Press to flip.");
      if (c.href && flipped) { v.link.href = c.href; v.link.hidden = false; } else { v.link.hidden = true; }
      v.proofBox.textContent = "";                    /* what proves the card: its own run, or a linked one */
      if (flipped && c.check !== undefined) {
        v.proofBox.appendChild(el("p", {}, "Checked by a run (" + c.command + ", run by the site build):"));
        v.proofBox.appendChild(el("pre", { "class": "dpg-card-output" }, c.check));
      } else if (flipped && c.proof) {
        v.proofBox.appendChild(el("a", { "class": "dpg-card-proof", "href": c.proof }, "See the run that proves it"));
      }
    };
    v.appendTo = function (node) { [v.card, v.link, v.proofBox].forEach(function (n) { node.appendChild(n); }); };
    return v;
  }

  /* ------------------------------------------------------------------ review schedule (FSRS, as Anki) */
  /* One store for every deck: card id -> the ts-fsrs card (due date, stability, difficulty, ...).
   * A card's id is its deck id and a hash of its front, so editing other cards keeps its history. */
  var REVIEWS = "reviews";
  var GRADES = [["Again", "Again"], ["Hard", "Hard"], ["Good", "Good"], ["Easy", "Easy"]];
  function hash(text) {
    var h = 5381;
    for (var i = 0; i < text.length; i++) h = ((h << 5) + h + text.charCodeAt(i)) >>> 0;
    return h.toString(36);
  }
  function cardId(deckId, c) { return deckId + ":" + hash(c.front); }
  function scheduler() { return window.FSRS.fsrs(window.FSRS.generatorParameters({ enable_fuzz: false })); }
  function reviews() { return load(REVIEWS, {}); }
  function stored(all, id) { return all[id] ? window.FSRS.TypeConvert.card(all[id]) : null; }
  function span(ms) {                                 /* "10 min", "3 d", "2 mo" */
    var m = Math.max(1, Math.round(ms / 60000));
    if (m < 60) return m + " min";
    if (m < 1440) return Math.round(m / 60) + " h";
    var d = Math.round(m / 1440);
    if (d < 31) return d + " d";
    return d < 365 ? Math.round(d / 30) + " mo" : (d / 365).toFixed(1) + " y";
  }
  /* New cards a day, as Anki limits them: the first grade of a new card counts against the day's
     allowance (the study box's data-new-per-day, else 20); "Study more new cards" raises it for today. */
  var INTRODUCED = "introduced", NEW_PER_DAY = 20;
  function localDay(at) { return at.getFullYear() + "-" + (at.getMonth() + 1) + "-" + at.getDate(); }
  function today(at) {
    var t = load(INTRODUCED, null);
    return t && t.day === localDay(at) ? t : { day: localDay(at), ids: [], extra: 0 };
  }
  function dueText(record, at) {
    if (!record) return "new";
    var wait = record.due.getTime() - at.getTime();
    return wait <= 0 ? "due now" : "next review in " + span(wait) + " (" + record.due.toLocaleDateString() + ")";
  }

  /* a review changed: every deck on the current page refreshes its due line (one listener for the
     whole session, so instant navigation does not pile up listeners of decks that are gone) */
  function announceReviewed() { document.dispatchEvent(new CustomEvent("dpg-reviewed")); }
  document.addEventListener("dpg-reviewed", function () {
    document.querySelectorAll(".dpg-deck-widget").forEach(function (w) { if (w.dpgRefresh) w.dpgRefresh(); });
  });

  /* ------------------------------------------------------------------ a deck: browse its cards */
  function initDeck(deck, data, widget) {
    var order = data.cards.map(function (_, i) { return i; });
    var position = 0, flipped = false;
    var view = cardView();
    var status = el("p", { "class": "dpg-deck-status" });
    var controls = el("div", { "class": "dpg-deck-controls" });
    function button(label, cls, fn) {
      var b = el("button", { "type": "button", "class": "md-button " + cls }, label);
      b.addEventListener("click", fn); controls.appendChild(b); return b;
    }
    function show() {
      var c = data.cards[order[position]];
      view.show(c, flipped);
      status.textContent = "Card " + (position + 1) + " of " + order.length + " · " +
        dueText(stored(reviews(), cardId(data.id, c)), new Date());
    }
    function move(step) { position = (position + step + order.length) % order.length; flipped = false; show(); }
    view.card.addEventListener("click", function () { flipped = !flipped; show(); });
    button("Previous", "dpg-prev", function () { move(-1); });
    button("Next", "dpg-next", function () { move(1); });
    button("Shuffle", "dpg-shuffle", function () {
      for (var i = order.length - 1; i > 0; i--) { var j = Math.floor(Math.random() * (i + 1)); var t = order[i]; order[i] = order[j]; order[j] = t; }
      position = 0; flipped = false; show();
    });
    widget.addEventListener("keydown", function (ev) {
      if (ev.target.tagName === "A") return;
      if (ev.key === "ArrowRight") { ev.preventDefault(); move(1); }
      else if (ev.key === "ArrowLeft") { ev.preventDefault(); move(-1); }
    });
    widget.dpgRefresh = show;                      /* called by the one "dpg-reviewed" listener below */
    widget.appendChild(el("p", { "class": "dpg-instructions" },
      "Browse this deck: click the card or press Space to flip it; arrow keys go to the next or previous card. " +
      "Grade cards in the study queue at the top of the page; each card here says when it is due."));
    view.appendTo(widget);
    widget.appendChild(controls);
    widget.appendChild(status);
    show();
  }

  /* ------------------------------------------------------------------ the study queue across decks */
  function initStudy(box, decks) {
    if (!window.FSRS) { box.appendChild(el("p", {}, "The study queue needs the FSRS script, which did not load.")); return; }
    var f = scheduler();
    var cards = [];                                   /* every card of the page, in page order */
    decks.forEach(function (d) { d.cards.forEach(function (c) { cards.push({ id: cardId(d.id, c), deck: d.id, c: c }); }); });
    var filter = el("select", { "class": "dpg-study-filter", "aria-label": "Which deck to study" });
    filter.appendChild(el("option", { "value": "" }, "All decks"));
    decks.forEach(function (d) { filter.appendChild(el("option", { "value": d.id }, d.title)); });
    var counts = el("p", { "class": "dpg-study-counts", "aria-live": "polite" });
    var view = cardView();
    var grades = el("div", { "class": "dpg-deck-controls dpg-study-grades" });
    var tools = el("div", { "class": "dpg-deck-controls dpg-study-tools" });
    var message = el("p", { "class": "dpg-study-message", "role": "status" });
    var current = null, flipped = false;
    var perDay = parseInt(box.getAttribute("data-new-per-day"), 10) || NEW_PER_DAY;

    function queue(at) {
      var all = reviews(), due = [], fresh = [], t = today(at);
      cards.forEach(function (item) {
        if (filter.value && item.deck !== filter.value) return;
        var r = stored(all, item.id);
        if (!r) fresh.push(item);
        else if (r.due.getTime() <= at.getTime()) due.push({ item: item, due: r.due.getTime() });
      });
      due.sort(function (a, b) { return a.due - b.due; });
      var allowed = Math.max(0, perDay + t.extra - t.ids.length);
      return { due: due.map(function (x) { return x.item; }), fresh: fresh.slice(0, allowed),
               waiting: Math.max(0, fresh.length - allowed) };
    }
    function nextDue(at) {
      var all = reviews(), best = null;
      cards.forEach(function (item) {
        var r = stored(all, item.id);
        if (r && (!filter.value || item.deck === filter.value) && (!best || r.due < best)) best = r.due;
      });
      return best && best > at ? best : null;
    }
    function render() {
      var at = new Date(), q = queue(at);
      current = q.due[0] || q.fresh[0] || null;
      counts.textContent = "Due now: " + (q.due.length + q.fresh.length) + " (" + q.due.length + " to review, " +
        q.fresh.length + " new)" + (q.waiting ? "; " + q.waiting + " more new after today's " + perDay +
        (perDay === 1 ? " new card" : " new cards") : "");
      more.hidden = !q.waiting;
      grades.textContent = "";
      if (!current) {
        var later = nextDue(at);
        view.card.hidden = true; view.link.hidden = true; view.proofBox.textContent = "";
        message.textContent = "Nothing is due" + (later ? ". Next review: " + later.toLocaleString() + "." : ".") +
          (q.waiting ? " New cards wait for tomorrow, or study more now." : "");
        return;
      }
      view.card.hidden = false;
      view.show(current.c, flipped);
      if (!flipped) { message.textContent = "Recall the answer, then flip the card (Space) to grade yourself."; return; }
      message.textContent = "How well did you recall it? Keys 1 to 4 grade it.";
      var record = stored(reviews(), current.id) || window.FSRS.createEmptyCard(at);
      var preview = f.repeat(record, at);
      GRADES.forEach(function (g, i) {
        var rating = window.FSRS.Rating[g[0]];
        var b = el("button", { "type": "button", "class": "md-button dpg-grade dpg-grade-" + g[0].toLowerCase(),
                               "data-rating": String(rating) },
                   (i + 1) + " · " + g[1] + " · " + span(preview[rating].card.due.getTime() - at.getTime()));
        b.addEventListener("click", function () { grade(rating); });
        grades.appendChild(b);
      });
    }
    function grade(rating) {
      var at = new Date(), all = reviews();
      var record = stored(all, current.id);
      if (!record) {                                  /* a new card: it counts against today's allowance */
        var t = today(at);
        t.ids.push(current.id);
        save(INTRODUCED, t);
        record = window.FSRS.createEmptyCard(at);
      }
      all[current.id] = f.next(record, at, rating).card;
      save(REVIEWS, all);
      flipped = false;
      render();
      announceReviewed();
      view.card.focus();
    }
    function tool(label, cls, fn) {
      var b = el("button", { "type": "button", "class": "md-button " + cls }, label);
      b.addEventListener("click", fn); tools.appendChild(b); return b;
    }
    view.card.addEventListener("click", function () { flipped = !flipped; render(); });
    box.addEventListener("keydown", function (ev) {
      if (!flipped || !current || ev.target.tagName === "SELECT") return;
      var n = "1234".indexOf(ev.key);
      if (n >= 0) { ev.preventDefault(); grade(window.FSRS.Rating[GRADES[n][0]]); }
    });
    filter.addEventListener("change", function () { flipped = false; render(); });
    var more = tool("Study more new cards", "dpg-study-more", function () {
      var t = today(new Date());
      t.extra += perDay;
      save(INTRODUCED, t);
      flipped = false; render();
    });
    tool("Export progress", "dpg-study-export", function () {
      var blob = new Blob([JSON.stringify({ format: "dpguide-reviews", version: 1, reviews: reviews() }, null, 1)],
                          { type: "application/json" });
      var a = el("a", { "href": URL.createObjectURL(blob), "download": "dpguide-flashcards.json" });
      document.body.appendChild(a); a.click(); a.remove();
      message.textContent = "Progress exported to dpguide-flashcards.json.";
    });
    var picker = el("input", { "type": "file", "accept": "application/json,.json", "class": "dpg-study-file",
                               "aria-label": "Progress file to import", "hidden": "" });
    tools.appendChild(picker);
    tool("Import progress", "dpg-study-import", function () { picker.click(); });
    picker.addEventListener("change", function () {
      var file = picker.files[0];
      if (!file) return;
      file.text().then(function (text) {
        var data = JSON.parse(text);
        if (!data || data.format !== "dpguide-reviews" || typeof data.reviews !== "object") throw new Error("not a progress file");
        Object.keys(data.reviews).forEach(function (id) { window.FSRS.TypeConvert.card(data.reviews[id]); });
        save(REVIEWS, data.reviews);
        flipped = false; render();
        announceReviewed();
        message.textContent = "Imported progress for " + Object.keys(data.reviews).length + " card(s).";
      }).catch(function (e) { message.textContent = "Could not import " + file.name + ": " + e.message; });
      picker.value = "";
    });
    tool("Reset progress", "dpg-study-reset", function () {
      if (!window.confirm("Forget every review of every deck?")) return;
      save(REVIEWS, {}); save(INTRODUCED, null); flipped = false; render(); announceReviewed();
    });
    box.textContent = "";
    var label = el("label", { "class": "dpg-study-label" }, "Study: ");
    label.appendChild(filter);
    box.appendChild(label);
    box.appendChild(counts);
    view.appendTo(box);
    box.appendChild(message);
    box.appendChild(grades);
    box.appendChild(tools);
    render();
  }

  function readData(node, cls) {
    var script = node.querySelector("script." + cls);
    return script ? JSON.parse(script.textContent) : null;
  }

  /* A link to a run inside a tab that is not shown (a flashcard's proof, a page#run-anchor) selects
     that tab, and the tabs around it, then scrolls to the run: otherwise the page opens elsewhere */
  function revealTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    var block = target.closest(".tabbed-block"), moved = false;
    while (block) {
      var set = block.closest(".tabbed-set");
      var blocks = Array.prototype.filter.call(block.parentElement.children, function (b) { return b.classList.contains("tabbed-block"); });
      var inputs = Array.prototype.filter.call(set.children, function (c) { return c.tagName === "INPUT"; });
      var input = inputs[blocks.indexOf(block)];
      if (input && !input.checked) { input.checked = true; moved = true; }
      block = set.parentElement && set.parentElement.closest(".tabbed-block");
    }
    if (moved) target.scrollIntoView();
  }
  window.addEventListener("hashchange", revealTarget);

  /* A diagram the build drew from its record (dpguide.diagrams) comes in a declarative shadow root,
     which the HTML parser attaches on a first visit. Material's instant navigation parses the next
     page with DOMParser, which leaves such a template inert: attach it here, as the parser would. */
  function attachDrawings() {
    document.querySelectorAll(".dpg-drawn > template[shadowrootmode]").forEach(function (template) {
      var host = template.parentNode;
      if (!host.shadowRoot) host.attachShadow({ mode: template.getAttribute("shadowrootmode") }).appendChild(template.content);
      template.remove();
    });
  }

  var sideways = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var box = entry.target;
      sideways.unobserve(box);                     /* measured once, as before; no page kept alive after navigation */
      if (box.scrollWidth > box.clientWidth && !box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    });
  });

  function initQuiz(quiz) {
    var data = readData(quiz, "dpg-quiz-data");
    var widget = quiz.querySelector(".dpg-quiz-widget");
    quiz.classList.add("dpg-enhanced");
    if (data.type === "choice") initChoice(quiz, data, widget); else initFill(quiz, data, widget);
  }

  function init() {
    attachDrawings();
    revealTarget();
    /* Material's search overlay is a dialog without a name; give it one for screen readers */
    var search = document.querySelector(".md-search[role='dialog']");
    if (search && !search.getAttribute("aria-label")) search.setAttribute("aria-label", "Search the site");
    /* regions that scroll sideways (notebook cells, long rows of rank tabs) must be reachable by keyboard */
    /* measured when the browser has laid the page out anyway (a ResizeObserver reports each box after
       layout): reading widths here would force a layout of the whole page inside this script */
    document.querySelectorAll(".jupyter-wrapper .jp-InputArea-editor, .jupyter-wrapper pre, .tabbed-labels, pre.dpg-quiz-code")
      .forEach(function (box) { sideways.observe(box); });
    var quizzes = Array.prototype.filter.call(document.querySelectorAll(".dpg-quiz"), function (quiz) {
      if (quiz.dataset.init === "1") return false;
      quiz.dataset.init = "1";                     /* claimed now: a second init() leaves it alone */
      return true;
    });
    /* a set's questions become widgets a few at a time, each batch a short task of its own, so the
       page answers a tap while the rest are built (one long task would hold the main thread) */
    (function build() {
      var start = Date.now();
      while (quizzes.length && Date.now() - start < 10) initQuiz(quizzes.shift());
      if (quizzes.length) setTimeout(build, 0);
    })();
    var article = document.querySelector("article") || document.body;
    scoreBar(article);
    updateScore();
    document.querySelectorAll(".dpg-practice-index").forEach(practiceIndex);
    if (!document.querySelector(".dpg-deck, .dpg-study")) return;
    /* the FSRS scheduler only where cards are; without it the study queue says it did not load */
    if (window.FSRS) initCards(); else vendor("ts-fsrs.umd.js").then(initCards, initCards);
  }

  function initCards() {
    var decks = [];
    document.querySelectorAll(".dpg-deck").forEach(function (deck) {
      var data = readData(deck, "dpg-deck-data");
      decks.push(data);
      if (deck.dataset.init === "1") return;
      deck.dataset.init = "1";
      initDeck(deck, data, deck.querySelector(".dpg-deck-widget"));
    });
    document.querySelectorAll(".dpg-study").forEach(function (box) {
      if (box.dataset.init === "1") return;
      box.dataset.init = "1";
      initStudy(box, decks);
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);              /* Material's instant navigation */
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
