/**
 * The web console's two assets, served from `/static/` and shipped inside `dist/` with the code
 * (DESIGN §10.2): one stylesheet, readable on a phone, and one small script that keeps the turns
 * list live over server-sent events. Pages carry neither inline: the Content-Security-Policy
 * allows scripts and styles from the console itself only.
 */

/** The console's stylesheet. */
export const CONSOLE_CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff;line-height:1.4}
header{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:space-between;align-items:center;padding:.5rem 1rem;background:#12355b;color:#fff}
header nav{display:flex;flex-wrap:wrap;gap:1rem}header a{color:#fff}header a[aria-current=page]{font-weight:bold;text-decoration-thickness:3px}
main{padding:1rem;max-width:72rem;margin:auto}a{color:#0b4f8a}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}caption{text-align:left;font-weight:bold;padding:.3rem 0}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ccc;vertical-align:top;overflow-wrap:break-word}
.flash{padding:.5rem;border-left:4px solid}.flash.done{border-color:#17693a;background:#e8f5ec}.flash.refused{border-color:#a00000;background:#fbeaea;color:#7a0000}
.login label,.action label{display:block;margin:.5rem 0}input,select,textarea,button{font-size:1rem;padding:.3rem;max-width:100%}
textarea{width:100%;box-sizing:border-box}button{cursor:pointer}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin-bottom:.5rem}.filters label{display:flex;flex-direction:column;font-size:.9rem}
.muted{color:#555}.id{overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.5rem;margin:.3rem 0}
.message{border-left:4px solid #999;padding:.2rem .7rem;margin:.6rem 0}.message.user{border-color:#0b4f8a}.message.assistant{border-color:#17693a}.message.tool{border-color:#8a5a00}
.role{font-weight:bold;font-size:.9rem}details{margin:.3rem 0}summary{cursor:pointer}
.call{border:1px solid #ccc;border-radius:4px;padding:.5rem .8rem;margin:.8rem 0}.call h3{margin:.2rem 0;font-size:1.05rem}
.timeline{margin:.3rem 0;padding-left:1.2rem}.actions{display:flex;flex-wrap:wrap;gap:1rem}.action{flex:1 1 16rem;border-top:1px solid #ddd;padding-top:.3rem}
.chart{width:100%;max-width:40rem;height:auto}.chart rect{fill:#12355b}.chart text{font-size:10px;fill:#1a1a1a}
@media (max-width:40rem){table.rows,table.rows thead,table.rows tbody,table.rows tr,table.rows th,table.rows td{display:block}table.rows thead{display:none}
table.rows tr{border-bottom:2px solid #999;padding:.3rem 0}table.rows td{border:none;padding:.1rem .3rem}}
`;

/**
 * The console's script: on a page with a live list (`tbody[data-live]`), it listens to `/events`
 * with the page's own filters and replaces the rows each time the server sends them.
 */
export const CONSOLE_JS = `'use strict';
(function () {
  var rows = document.querySelector('tbody[data-live]');
  if (rows === null || typeof EventSource === 'undefined') return;
  var said = document.getElementById('live-state');
  var source = new EventSource('/events' + window.location.search);
  source.addEventListener('turns', function (event) { rows.innerHTML = event.data; });
  source.addEventListener('open', function () { if (said) said.textContent = 'Updated live.'; });
  source.addEventListener('error', function () { if (said) said.textContent = 'Live updates paused: reconnecting…'; });
})();
`;
