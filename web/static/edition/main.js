// The edition page: transcribe your own box, fast, on a phone at the table (host only). Every
// change is one request the companion validates and saves; the reader's taps come here while
// the page is open. This module starts the page; each tab is a module of its own.
import { translatePage } from "../i18n.js";
import { api, problems } from "./api.js";
import { pollTag } from "./capture.js";
import { listEditions } from "./library.js";
import { $, session } from "./shared.js";
import "./share.js";
import "./tabs.js";

async function start() {
  const s = await api("GET", "/api/session");
  session.mock = s.mock;
  if (!s.host) { $("login").hidden = false; return; }
  session.csrf = s.csrf;
  $("login").hidden = true; $("main").hidden = false; $("mock-reader").hidden = !session.mock;
  await listEditions();
  setInterval(pollTag, 400);
}
$("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try { await api("POST", "/api/login", { pin: $("pin").value }); await start(); }
  catch (e) { $("login-msg").textContent = problems(e); }
});

translatePage();  // in the table page's language (its setting is shared through localStorage)
start().catch((e) => { document.body.append(problems(e)); });
