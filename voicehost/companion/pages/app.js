// voicehost companion page: one player's private channel.
// The token lives in this browser's localStorage (per game) and travels only in
// request headers and the websocket's first message, never in a URL.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  info: null, token: null, name: null, ws: null, retry: 0,
  privatePayload: null, table: null, selected: null, synced: null,
  pending: [], pingTimer: null, pings: 0, revealed: false,
};

function say(text) { $("status").textContent = text; }
function key(what) { return "voicehost-" + what + "-" + state.info.instance; }
function now() { return performance.now() / 1000; }
function newId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
function cap(word) { return word ? word.charAt(0).toUpperCase() + word.slice(1) : word; }
function cardName(card) {
  // "rower:red" -> "Red rower"; "kraken" -> "Kraken"
  const [kind, colour] = String(card).split(":");
  return colour ? cap(colour) + " " + kind : cap(kind);
}
function show(id, visible) { $(id).hidden = !visible; }

// -- joining -------------------------------------------------------------------------
async function start() {
  const res = await fetch("/api/info", { cache: "no-store" });
  state.info = await res.json();
  document.body.dataset.game = state.info.game;
  $("title").textContent = state.info.game === "sailor" ? "Sunken Sailor" : "Drakkar Tum Tum";
  try {
    state.token = localStorage.getItem(key("token"));
    state.pending = JSON.parse(localStorage.getItem(key("pending")) || "[]");
  } catch (e) { state.token = null; state.pending = []; }
  if (state.token) {
    say("Welcome back: finding your seat…");
    connect();
  } else {
    showJoin();
  }
}

function showJoin(message) {
  show("join", true); show("seat", false); show("sailor", false); show("drakkar", false);
  show("code-form", true); show("seat-form", false);
  say(message || "Enter the join code the host says.");
  const m = /code=([A-Za-z]+)/.exec(location.hash);
  if (m) { $("code").value = m[1].toUpperCase(); lookUpCode(); } else { $("code").focus(); }
}

async function lookUpCode() {
  const code = $("code").value.trim();
  if (!code) { say("Type the join code first."); $("code").focus(); return; }
  const res = await fetch("/api/lobby?code=" + encodeURIComponent(code), { cache: "no-store" });
  const data = await res.json();
  if (!res.ok) { say(data.error); $("code").focus(); return; }
  state.code = code;
  buildSeatForm(data);
}

function radio(group, value, text, swatch) {
  const label = document.createElement("label");
  label.className = "choice";
  const input = document.createElement("input");
  input.type = "radio"; input.name = group; input.value = value;
  label.appendChild(input);
  if (swatch) {
    const box = document.createElement("span");
    box.className = "swatch"; box.style.background = swatch;
    box.setAttribute("aria-hidden", "true");
    label.appendChild(box);
  }
  label.appendChild(document.createTextNode(text));
  return label;
}

function buildSeatForm(lobby) {
  const names = $("names"), colours = $("colours");
  names.replaceChildren(); colours.replaceChildren();
  if (lobby.fixed_names) {
    if (!lobby.free_seats.length) { say("Every seat is taken. Ask the host."); return; }
    for (const seat of lobby.free_seats) {
      const text = seat.colour ? seat.name + " (" + seat.colour + ")" : seat.name;
      names.appendChild(radio("name", seat.name, text, seat.colour));
    }
  } else {
    const label = document.createElement("label");
    label.htmlFor = "name-input"; label.textContent = "Type your name";
    const input = document.createElement("input");
    input.type = "text"; input.id = "name-input"; input.name = "name";
    input.maxLength = 24; input.autocomplete = "nickname";
    names.append(label, input);
  }
  show("colour-choice", !lobby.fixed_colours);
  if (!lobby.fixed_colours) {
    for (const colour of lobby.colours) colours.appendChild(radio("colour", colour, cap(colour), colour));
  }
  show("code-form", false); show("seat-form", true);
  say("Choose your name" + (lobby.fixed_colours ? "." : " and your colour."));
  const first = names.querySelector("input");
  if (first) first.focus();
}

async function sitDown(event) {
  event.preventDefault();
  const form = $("seat-form");
  const picked = form.querySelector("input[name=name]:checked") || $("name-input");
  const colour = form.querySelector("input[name=colour]:checked");
  const name = picked ? picked.value.trim() : "";
  if (!name) { say("Choose your name."); return; }
  if (!$("colour-choice").hidden && !colour) { say("Choose your colour."); return; }
  const res = await fetch("/api/join", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code: state.code, name, colour: colour ? colour.value : null }),
  });
  const data = await res.json();
  if (!res.ok) {
    say(data.error);
    if (res.status === 409 || res.status === 403) lookUpCode();
    return;
  }
  state.token = data.token;
  try { localStorage.setItem(key("token"), data.token); } catch (e) { /* kept in memory */ }
  history.replaceState(null, "", location.pathname);
  say("Seated as " + data.name + ".");
  connect();
}

// -- the live channel --------------------------------------------------------------
function connect() {
  if (state.ws && state.ws.readyState <= 1) return;
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  state.ws = ws;
  ws.onopen = () => { state.retry = 0; ws.send(JSON.stringify({ type: "hello", token: state.token, origin: performance.timeOrigin })); };
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = (event) => {
    stopPings();
    if (state.ws !== ws) return;
    state.ws = null;
    if (event.code === 4403) { forget("Your seat was freed or belongs to another game. Take a seat again."); return; }
    $("connection").textContent = "Connection lost: reconnecting…";
    say("Connection lost: reconnecting…");
    const wait = Math.min(5000, 500 * 2 ** state.retry++);
    setTimeout(connect, wait);
  };
}

function forget(message) {
  try { localStorage.removeItem(key("token")); localStorage.removeItem(key("pending")); } catch (e) { /* ignore */ }
  state.token = null; state.pending = [];
  showJoin(message);
}

function receive(msg) {
  switch (msg.type) {
    case "welcome":
      state.name = msg.name;
      show("join", false); show("seat", true);
      $("seat-heading").textContent = msg.name + (msg.colour ? ", " + msg.colour : "");
      $("connection").textContent = "Connected to the host.";
      say("Connected as " + msg.name + ".");
      state.synced = null;
      setPrivate(msg.private); setTable(msg.table);
      show(state.info.game, true);
      startPings();
      // Taps made while away wait for the clock, so they keep their own time.
      setTimeout(flushPending, 1500);
      break;
    case "pong":
      state.lastPong = now();
      if (msg.t1 !== null && state.ws) {
        state.ws.send(JSON.stringify({ type: "sample", t0: msg.t0, t1: msg.t1, t2: msg.t2, t3: now(), epoch: msg.epoch }));
      }
      break;
    case "clock": {
      const first = state.synced === null;
      state.synced = msg;
      $("clock").textContent = "Clock in step with the host within " + (msg.error * 1000).toFixed(1) + " ms.";
      if (first) flushPending();
      break;
    }
    case "private": setPrivate(msg.payload); break;
    case "table": setTable(msg.payload); break;
    case "ack": acknowledged(msg); break;
    case "refused":
      state.pending = state.pending.filter((p) => p.id !== msg.id);
      savePending();
      say(msg.message);
      $("played").textContent = msg.message;
      break;
    case "resync": state.synced = null; startPings(); break;
    case "released": break;
    case "denied": break;
  }
}

function startPings() {
  stopPings();
  state.pings = 0;
  state.lastPong = now();
  const ping = () => {
    if (!state.ws || state.ws.readyState !== 1) return;
    // A phone that slept may hold a dead connection that looks open: drop it and reconnect.
    if (now() - state.lastPong > 7) {
      const dead = state.ws;
      state.ws = null;
      dead.onclose = null;
      dead.close();
      $("connection").textContent = "Connection lost: reconnecting…";
      connect();
      return;
    }
    state.ws.send(JSON.stringify({ type: "ping", id: state.pings, t0: now() }));
    state.pings += 1;
    // A quick burst to sync at once, then one every two seconds.
    state.pingTimer = setTimeout(ping, state.pings < 10 ? 100 : 2000);
  };
  ping();
}
function stopPings() { if (state.pingTimer) clearTimeout(state.pingTimer); state.pingTimer = null; }

// -- Sunken Sailor: the secret, only while held -----------------------------------
function secretNodes(p) {
  const out = [];
  const para = (parts) => {
    const el = document.createElement("p");
    for (const part of parts) {
      if (typeof part === "string") el.appendChild(document.createTextNode(part));
      else { const s = document.createElement("strong"); s.textContent = part.strong; el.appendChild(s); }
    }
    out.push(el);
  };
  if (!p) { para(["Nothing yet: wait for the host to deal the roles."]); return out; }
  para(["You are ", { strong: p.role || "a sailor" }, "."]);
  if (p.word) para(["The secret word is ", { strong: p.word }, "."]);
  if (p.line) para(["Your story line: ", { strong: p.line }]);
  if (p.note) para([p.note]);
  return out;
}

function reveal(on) {
  if (state.revealed === on) return;
  state.revealed = on;
  const button = $("reveal");
  button.classList.toggle("held", on);
  button.setAttribute("aria-expanded", on ? "true" : "false");
  button.textContent = on ? "Showing: let go to hide" : "Hold to reveal";
  if (on) $("secret").replaceChildren(...secretNodes(state.privatePayload));
  else $("secret").replaceChildren();
}

function setupReveal() {
  const b = $("reveal");
  b.addEventListener("pointerdown", (e) => { e.preventDefault(); b.setPointerCapture && b.setPointerCapture(e.pointerId); reveal(true); });
  for (const ev of ["pointerup", "pointercancel", "lostpointercapture"]) b.addEventListener(ev, () => reveal(false));
  b.addEventListener("keydown", (e) => {
    if (e.key === " " || e.key === "Enter") { e.preventDefault(); reveal(true); }
  });
  b.addEventListener("keyup", (e) => {
    if (e.key === " " || e.key === "Enter") { e.preventDefault(); reveal(false); }
  });
  b.addEventListener("blur", () => reveal(false));
  b.addEventListener("contextmenu", (e) => e.preventDefault());
  document.addEventListener("visibilitychange", () => { if (document.hidden) reveal(false); });
}

// -- Drakkar: the hand and the play tap ----------------------------------------------
function renderHand() {
  const hand = $("hand");
  const cards = (state.privatePayload && state.privatePayload.hand) || [];
  for (const old of hand.querySelectorAll("button")) old.remove();
  if (state.selected !== null && !cards.includes(state.selected)) state.selected = null;
  cards.forEach((card) => {
    const b = document.createElement("button");
    b.type = "button"; b.className = "card"; b.dataset.card = card;
    b.textContent = cardName(card);
    b.setAttribute("aria-pressed", card === state.selected ? "true" : "false");
    b.addEventListener("click", () => { state.selected = card; renderHand(); say(cardName(card) + " chosen."); });
    hand.appendChild(b);
  });
  $("hand-label").textContent = cards.length
    ? "Your " + cards.length + " cards. Choose one, then tap its section on the last Tum."
    : "No cards yet: wait for the host to deal.";
}

function declare(slot, stamp, kind) {
  if (!state.selected) { say("Choose a card first."); return; }
  // The origin lets the host place a tap that waits across a reload (a new clock).
  const d = { type: "play", kind: kind || "play", id: newId(), card: state.selected, slot,
              t: stamp / 1000, origin: performance.timeOrigin };
  state.pending.push(d);
  savePending();
  send(d);
  $("played").textContent = describe(d) + ": sent.";
}

function describe(d) {
  return d.kind === "discard" ? cardName(d.card) + " discarded"
                              : cardName(d.card) + " on section " + d.slot;
}

function send(d) {
  if (state.ws && state.ws.readyState === 1 && state.synced !== null) state.ws.send(JSON.stringify(d));
}
function flushPending() { for (const d of state.pending) send(d); }
function savePending() { try { localStorage.setItem(key("pending"), JSON.stringify(state.pending)); } catch (e) { /* ignore */ } }

function acknowledged(msg) {
  const d = state.pending.find((p) => p.id === msg.id);
  state.pending = state.pending.filter((p) => p.id !== msg.id);
  savePending();
  if (d && !msg.duplicate) {
    const err = msg.error === null || msg.error === undefined ? "" : " (±" + (msg.error * 1000).toFixed(1) + " ms)";
    $("played").textContent = describe(d) + ": the host has it at "
      + msg.t.toFixed(3) + " s" + err + ".";
    document.body.dataset.lastAck = JSON.stringify({ id: msg.id, t: msg.t, error: msg.error, phone_t: d.t });
  }
}

function setupSections() {
  $("discard").addEventListener("click", (e) => declare(null, e.timeStamp, "discard"));
  for (const b of document.querySelectorAll("button.play")) {
    const slot = Number(b.dataset.slot);
    let lastPointer = -1e9;
    // The tap's time is the finger's (pointerdown), not the release's.
    b.addEventListener("pointerdown", (e) => { lastPointer = e.timeStamp; declare(slot, e.timeStamp); });
    b.addEventListener("keydown", (e) => {
      if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); lastPointer = e.timeStamp; declare(slot, e.timeStamp); }
    });
    // Screen readers activate with a click and no pointerdown.
    b.addEventListener("click", (e) => { if (e.timeStamp - lastPointer > 1000) declare(slot, e.timeStamp); });
  }
}

// -- payloads ------------------------------------------------------------------------
function setPrivate(payload) {
  state.privatePayload = payload;
  if (state.info.game === "sailor") {
    if (state.revealed) $("secret").replaceChildren(...secretNodes(payload));
    if (payload) say((payload.round ? "Round " + payload.round + ": y" : "Y") + "our role has arrived: hold the button to read it.");
  } else {
    renderHand();
    if (payload && payload.turn) $("turn").textContent = payload.your_turn ? "Your turn." : cap(payload.turn) + " plays.";
    const extra = (payload && payload.discard) || 0;
    show("discard-box", extra > 0);
    $("discard-help").textContent = extra > 0
      ? "You hold " + extra + " card" + (extra > 1 ? "s" : "") + " too many: choose one and discard it." : "";
  }
}
function setTable(payload) {
  state.table = payload;
  if (payload && payload.message) say(payload.message);
}

document.addEventListener("DOMContentLoaded", () => {
  $("code-form").addEventListener("submit", (e) => { e.preventDefault(); lookUpCode(); });
  $("seat-form").addEventListener("submit", sitDown);
  setupReveal();
  setupSections();
  document.addEventListener("visibilitychange", () => {
    if (document.hidden || !state.token) return;
    if (!state.ws) connect();
    else if (state.ws.readyState === 1) startPings();  // check the connection at once
  });
  start().catch(() => say("The host cannot be reached. Check you are on the table's Wi-Fi."));
});
