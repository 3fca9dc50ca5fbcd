// live.js - the live view (GET /shardlocal/ui), no dependencies: every
// second it polls /shardlocal/tables, then the selected table's (or GSI's)
// history, partitions and hot keys, and draws them by hand on canvases:
// the table's consumption against its capacity, one chart per partition
// (consumed against the ceiling and the share, throttles per second, the
// burst bank), split and UpdateTable events on the time axis, the last
// second as a table, and the hot keys. ?table=T&index=G picks the view,
// &seconds=N the window, &op=read the reads (the controls keep the URL in
// step). A selected table that disappears shows "was deleted" and empty
// views, and comes back if it is created again. Each chart carries what it
// drew in data-* attributes (samples, consumed, throttles, events), and
// <body data-renders> counts the drawings, for tests. index.html links
// this file; the build inlines it into the page (api/admin/ui_embed.sh).
"use strict";
var sel = document.getElementById("tsel"), q = new URLSearchParams(location.search);
var want = q.get("table") ? {t: q.get("table"), i: q.get("index") || ""} : null;
var seen = {}, gone = null, last = null, renders = 0;
var WINDOWS = [60, 120, 300, 900], MAXCHARTS = 64;
var win = WINDOWS.indexOf(+q.get("seconds")) >= 0 ? +q.get("seconds") : 120;
var op = q.get("op") === "read" ? "read" : "write";

function $(id) { return document.getElementById(id); }
function key(w) { return w ? w.t + (w.i ? "/" + w.i : "") : ""; }
function j(u) {
  return fetch(u, {cache: "no-store"}).then(function (r) {
    if (r.status == 404) { var e = new Error("not found"); e.nf = true; throw e; }
    return r.json();
  });
}
function esc(s) {
  return String(s).replace(/[&<>"]/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c];
  });
}
function num(x) { return x == null ? "" : (Math.round(x * 10) / 10).toLocaleString("en-US"); }
function pl(n, w, p) { return num(n) + " " + (n == 1 ? w : (p || w + "s")); }
// An axis label: short enough for the margin (2.8k, 270k).
function short(x) {
  var a = Math.abs(x);
  return a >= 1e6 ? num(x / 1e6) + "M" : a >= 1e4 ? Math.round(x / 1e3) + "k" : a >= 1000 ? num(x / 1e3) + "k" : num(x);
}
function dur(s) { s = Math.round(s); return s < 90 ? s + " s" : Math.round(s / 60) + " min"; }

// --- drawing ----------------------------------------------------------------

var COL = {};
(function () {
  var st = getComputedStyle(document.documentElement);
  ["used", "used-fill", "cap", "ceil", "share", "thr", "bank", "ev", "grid", "ink", "dim"]
    .forEach(function (n) { COL[n] = st.getPropertyValue("--" + n).trim(); });
})();

// A canvas ready to draw on in CSS pixels at the screen's resolution.
function surface(cv) {
  var dpr = window.devicePixelRatio || 1, w = cv.clientWidth, h = cv.clientHeight;
  if (cv.width != Math.round(w * dpr) || cv.height != Math.round(h * dpr)) {
    cv.width = Math.round(w * dpr);
    cv.height = Math.round(h * dpr);
  }
  var g = cv.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  var fs = parseFloat(getComputedStyle(document.documentElement).fontSize) * 0.8;
  g.font = fs + "px system-ui, sans-serif";
  g.textBaseline = "middle";
  return {g: g, w: w, h: h, fs: fs};
}

// A round top for an axis holding v (1, 2, 2.5 or 5 times a power of ten).
function nice(v) {
  if (!(v > 0)) return 1;
  var p = Math.pow(10, Math.floor(Math.log10(v))), m = v / p;
  return p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10);
}

// The time axis: the window's seconds [t0, t0 + win) across [x, x + w).
function timeAxis(x, w, t1) {
  var t0 = t1 - win + 1, step = w / win;
  return {t0: t0, t1: t1, step: step, x: function (t) { return x + (t - t0 + 0.5) * step; }};
}

// One pane: a frame of height h at y with gridlines at 0, max/2 (when
// tall enough) and max, the values at the left and the pane's name
// inside it. Returns y(v).
function pane(s, L, y, w, h, max, name) {
  var g = s.g, fr = h > s.fs * 4 ? [0, 0.5, 1] : [0, 1];
  g.strokeStyle = COL.grid;
  g.lineWidth = 1;
  g.setLineDash([]);
  g.fillStyle = COL.dim;
  g.textAlign = "right";
  fr.forEach(function (f) {
    var yy = Math.round(y + h - f * h) + 0.5;
    g.beginPath(); g.moveTo(L, yy); g.lineTo(L + w, yy); g.stroke();
    if (f > 0) g.fillText(short(max * f), L - 4, yy);
  });
  if (name) {
    g.textAlign = "left";
    g.fillText(name, L + 4, y + s.fs * 0.6);
  }
  return function (v) { return y + h - Math.max(0, Math.min(1.04, v / max)) * h; };
}

function hline(s, L, w, y, color, dash, width) {
  var g = s.g;
  g.strokeStyle = color; g.lineWidth = width; g.setLineDash(dash);
  g.beginPath(); g.moveTo(L, y); g.lineTo(L + w, y); g.stroke();
  g.setLineDash([]);
}

// Values vals (one per sample, at times ts) as a filled area or a line.
function series(s, ax, ts, vals, y, base, color, fill, width, dash) {
  var g = s.g, pts = [];
  for (var k = 0; k < ts.length; k++)
    if (ts[k] >= ax.t0 && ts[k] <= ax.t1) pts.push([ax.x(ts[k]), y(vals[k])]);
  if (!pts.length) return 0;
  if (fill) {
    g.fillStyle = fill;
    g.beginPath(); g.moveTo(pts[0][0], base);
    pts.forEach(function (p) { g.lineTo(p[0], p[1]); });
    g.lineTo(pts[pts.length - 1][0], base); g.closePath(); g.fill();
  }
  g.strokeStyle = color; g.lineWidth = width; g.setLineDash(dash || []); g.lineJoin = "round";
  g.beginPath();
  pts.forEach(function (p, i) { if (i) g.lineTo(p[0], p[1]); else g.moveTo(p[0], p[1]); });
  if (pts.length == 1) g.lineTo(pts[0][0] + 1, pts[0][1]);
  g.stroke(); g.setLineDash([]);
  return pts.length;
}

// Throttles per second as bars on [y, y + h); returns their sum.
function bars(s, ax, ts, vals, y, h) {
  var g = s.g, max = 0, sum = 0, bw = Math.max(1.5, ax.step * 0.8);
  vals.forEach(function (v) { max = Math.max(max, v); });
  g.fillStyle = COL.thr;
  for (var k = 0; k < ts.length; k++) {
    if (!(vals[k] > 0) || ts[k] < ax.t0 || ts[k] > ax.t1) continue;
    var bh = Math.max(2, vals[k] / max * h);
    g.fillRect(ax.x(ts[k]) - bw / 2, y + h - bh, bw, bh);
    sum += vals[k];
  }
  return sum;
}

// Event markers: a vertical line at each second that had events (solid
// when one was a split, dashed for UpdateTable and tags), labelled above
// the plot with that second's events; a label that would overlap the one
// before it goes on a line above it, as far as the room allows.
function marks(s, ax, evs, top, bottom) {
  var g = s.g, n = 0, ends = [], rows = Math.max(1, Math.floor(top / (s.fs * 1.1))), at = {}, ts = [];
  evs.forEach(function (e) {
    if (e.t < ax.t0 || e.t > ax.t1) return;
    if (!at[e.t]) { at[e.t] = []; ts.push(e.t); }
    at[e.t].push(e);
    n++;
  });
  ts.forEach(function (t) {
    var x = Math.round(ax.x(t)) + 0.5, row = 0, split = false;
    var text = at[t].map(function (e) {
      split = split || e.kind == "split";
      return e.kind == "split" ? "split" + (e.partition != null ? " #" + e.partition : "") + " \u2192 " + e.partitions
        : e.kind == "update_table" ? "UpdateTable" : "tags";
    }).join(", ");
    var tw = g.measureText(text).width, right = x + 4 + tw > ax.x(ax.t1) + ax.step;
    var x0 = right ? Math.max(0, x - 4 - tw) : x + 4;
    while (ends[row] != null && ends[row] > x0 - 6 && row < rows - 1) row++;
    ends[row] = x0 + tw;
    g.strokeStyle = COL.ev; g.lineWidth = 3; g.setLineDash(split ? [] : [6, 4]);
    g.beginPath(); g.moveTo(x, top - s.fs * 0.3); g.lineTo(x, bottom); g.stroke(); g.setLineDash([]);
    g.fillStyle = COL.ev; g.textAlign = "left";
    g.fillText(text, x0, top - s.fs * (0.7 + row * 1.1));
  });
  return n;
}

// Seconds ago under the time axis.
function timeLabels(s, ax, L, w, y) {
  var g = s.g, n = w < 320 ? 2 : 4;
  g.fillStyle = COL.dim;
  for (var k = 0; k <= n; k++) {
    var ago = Math.round(win * (1 - k / n)), x = L + w * k / n;
    g.textAlign = k == 0 ? "left" : k == n ? "right" : "center";
    g.fillText(!ago ? "now" : ago < 180 ? "\u2212" + ago + " s" : "\u2212" + Math.round(ago / 6) / 10 + " min", x, y);
  }
}

function tag(cv, o) { for (var k in o) cv.setAttribute("data-" + k, String(o[k])); }
function field(o) { return o + (op == "write" ? "_wcu" : "_rcu"); }
function col(list, name) { return list.map(function (x) { return x[name] || 0; }); }
function maxOf(v) { return v.reduce(function (a, b) { return Math.max(a, b); }, 0); }
function sumOf(v) { return v.reduce(function (a, b) { return a + b; }, 0); }

// The table: consumed against capacity, throttles per second, events.
function drawTable(d) {
  var cv = $("tchart"), s = surface(cv), L = s.fs * 3.6, R = s.fs * 0.6, T = s.fs * 2.8;
  var w = s.w - L - R, h = s.h - T - s.fs * 1.6, ax = timeAxis(L, w, d.t1);
  var ts = col(d.table_seconds, "t"), used = col(d.table_seconds, field("consumed"));
  var cap = col(d.table_seconds, op + "_capacity"), thr = col(d.table_seconds, op + "_throttles");
  var h1 = h * 0.72, h2 = h * 0.2, y2 = T + h1 + h * 0.08;
  var y = pane(s, L, T, w, h1, nice(Math.max(maxOf(used), maxOf(cap)) * 1.05), "");
  var n = series(s, ax, ts, used, y, y(0), COL.used, COL["used-fill"], 2.5);
  series(s, ax, ts, cap, y, 0, COL.cap, null, 2.5, [8, 5]);
  pane(s, L, y2, w, h2, maxOf(thr) || 1, "throttled/s");
  var tsum = bars(s, ax, ts, thr, y2, h2);
  var ne = marks(s, ax, d.events, T, y2 + h2);
  timeLabels(s, ax, L, w, s.h - s.fs * 0.7);
  tag(cv, {samples: n, "consumed-max": maxOf(used), "consumed-sum": sumOf(used),
           "capacity-max": maxOf(cap), throttles: tsum, events: ne});
}

// One partition: consumed against its ceiling and share, throttles per
// second, and its burst bank (on-demand: what its ceiling can absorb).
function drawPart(cv, p, d) {
  var s = surface(cv), L = s.fs * 3.6, R = s.fs * 0.6, T = s.fs * 1.6, lim = d.limits || {};
  var w = s.w - L - R, h = s.h - T - s.fs * 1.6, ax = timeAxis(L, w, d.t1);
  var sec = p.seconds, ts = col(sec, "t"), used = col(sec, field("consumed"));
  var thr = col(sec, op + "_throttles"), od = lim.billing_mode == "PAY_PER_REQUEST";
  var bank = col(sec, op + (od ? "_burst" : "_bucket"));
  var ceil = lim[op + "_ceiling"] || 0, share = p[op + "_share"] || 0;
  var bcap = od ? lim[op + "_ceiling_burst"] : p[op + "_bucket_capacity"];
  var h1 = h * 0.56, h2 = h * 0.17, h3 = h * 0.17, y2 = T + h1 + h * 0.05, y3 = y2 + h2 + h * 0.05;
  var y = pane(s, L, T, w, h1, nice(Math.max(maxOf(used), ceil, share) * 1.05), "");
  var n = series(s, ax, ts, used, y, y(0), COL.used, COL["used-fill"], 2.5);
  if (ceil > 0) hline(s, L, w, y(ceil), COL.ceil, [8, 5], 2.5);
  if (share > 0) hline(s, L, w, y(share), COL.share, [2, 4], 3.5);
  pane(s, L, y2, w, h2, maxOf(thr) || 1, "throttled/s");
  var tsum = bars(s, ax, ts, thr, y2, h2);
  var yb = pane(s, L, y3, w, h3, bcap > 0 ? bcap : maxOf(bank) || 1, od ? "burst" : "burst bank");
  series(s, ax, ts, bank, yb, 0, COL.bank, null, 3);
  var ne = marks(s, ax, d.events.filter(function (e) { return e.kind == "split"; }), T, y3 + h3);
  timeLabels(s, ax, L, w, s.h - s.fs * 0.7);
  tag(cv, {partition: p.partition, samples: n, "consumed-max": maxOf(used),
           "consumed-sum": sumOf(used), throttles: tsum, events: ne,
           "bank-last": bank.length ? bank[bank.length - 1] : ""});
}

// --- the views -----------------------------------------------------------

function setUrl() {
  var u = new URLSearchParams(location.search);
  if (want) u.set("table", want.t);
  if (want && want.i) u.set("index", want.i); else u.delete("index");
  if (win != 120) u.set("seconds", win); else u.delete("seconds");
  if (op == "read") u.set("op", "read"); else u.delete("op");
  history.replaceState(null, "", "?" + u.toString());
}
function clear(msg) {
  gone = msg; last = null;
  ["psum", "tsum"].forEach(function (id) { $(id).textContent = ""; });
  document.querySelector("#parts tbody").innerHTML = ""; $("hk").innerHTML = "";
  $("pcharts").innerHTML = ""; $("pcharts").removeAttribute("data-n");
  $("tchart").getContext("2d").clearRect(0, 0, $("tchart").width, $("tchart").height);
  var s = $("state"); s.textContent = msg; s.style.display = "block";
}
function tables() {
  return j("/shardlocal/tables").then(function (d) {
    var names = [], nt = 0, ni = 0;
    d.tables.forEach(function (t) {
      names.push({t: t.table, i: ""}); nt++;
      (t.indexes || []).forEach(function (i) { names.push({t: t.table, i: i.index}); ni++; });
    });
    names.forEach(function (n) { seen[key(n)] = true; });
    if (!want && names.length) { want = names[0]; setUrl(); }
    var k = key(want), have = names.some(function (n) { return key(n) == k; });
    var opts = names.map(function (n) { return '<option value="' + esc(key(n)) + '">' + esc(key(n)) + "</option>"; });
    if (want && !have) opts.unshift('<option value="' + esc(k) + '">' + esc(k) + (seen[k] ? " (deleted)" : " (not found)") + "</option>");
    var h = opts.join(""); if (sel.innerHTML != h) sel.innerHTML = h; if (want) sel.value = k;
    $("meta").textContent = "clock " + new Date(d.now_ms).toISOString() + " \u00b7 " + pl(nt, "table") + ", " + pl(ni, "index", "indexes");
    return have;
  });
}
function missing() {
  var k = key(want), what = want.i ? "Index " + want.i + " of table " + want.t : "Table " + want.t;
  clear(what + (seen[k] ? " was deleted." : " does not exist (yet): waiting for it."));
}
function base() { return "/shardlocal/tables/" + encodeURIComponent(want.t) + (want.i ? "/indexes/" + encodeURIComponent(want.i) : ""); }
function mine(d) { return d.table == want.t && (d.index || "") == want.i; }

function bar(v, max, cls, mark) {
  var p = max > 0 ? Math.max(0, Math.min(100, 100 * v / max)) : 0;
  var m = mark > 0 && max > 0 && mark < max ? '<i style="left:' + (100 * mark / max) + '%" title="share ' + num(mark) + '/s"></i>' : "";
  return '<div class="bar" title="' + num(v) + " / " + num(max) + '"><span class="' + cls + '" style="width:' + p + '%"></span>' + m + "</div> " + num(v);
}
function bucket(w, od) {
  if (od) return '<span class="z">on-demand</span>';
  if (!(w.bucket_capacity > 0)) return '<span class="z">-</span>';
  var lv = w.bucket_level || 0, net = (w.share_per_second || 0) - (w.consumed_last_second || 0);
  var s = num(lv) + ' <span class="t">/ ' + num(w.bucket_capacity) + "</span> ";
  if (net < -0.05) s += '<span class="dn" title="consuming faster than the share: the bank drains">&#9660; ' + num(-net) + "/s" + (lv > 0 ? ' <span class="t">empty in ' + dur(lv / -net) + "</span>" : "") + "</span>";
  else if (lv < w.bucket_capacity - 0.05) s += '<span class="up" title="refilling at the unused share">&#9650; ' + num(net) + "/s</span>";
  else s += '<span class="t">full</span>';
  return s;
}
function thr(o) {
  if (!o) return '<span class="z">-</span>';
  var r = o.throttled_last_second || 0, t = o.throttled_total || 0, c = o.throttled, d = [];
  for (var k in c) if (c[k]) d.push(k + " " + c[k]);
  return '<span class="' + (r ? "thr" : "z") + '">' + r + '</span> <span class="t" title="' + esc(d.join(", ")) + '">(' + num(t) + ")</span>";
}

// The partitions view: the summary line, the last second as a table;
// remembered for the partition cards' titles.
var now = null;
function parts() {
  return j(base() + "/partitions").then(function (d) {
    if (!mine(d)) return;
    now = d;
    var od = d.billing_mode == "PAY_PER_REQUEST", pr = d.provisioned, w = d.write || {}, r = d.read || {};
    $("psum").innerHTML = esc("(" + pl(d.partition_count, "partition") + ", " + pl(d.item_count || 0, "item") + ", " + d.billing_mode +
      (pr ? " " + pr.write_capacity_units + " WCU / " + pr.read_capacity_units + " RCU" : "") + ")") +
      ' &middot; throttled in the last second: <span class="' + (w.throttled_last_second ? "thr" : "z") + '">' + pl(w.throttled_last_second || 0, "write") +
      '</span>, <span class="' + (r.throttled_last_second ? "thr" : "z") + '">' + pl(r.throttled_last_second || 0, "read") + "</span>";
    document.querySelector("#parts tbody").innerHTML = d.partitions.map(function (p) {
      var w = p.write || {}, r = p.read || {}, hot = w.throttled_last_second || r.throttled_last_second;
      return "<tr" + (hot ? ' class="hot"' : "") + "><td>" + p.partition + '</td><td class="l"><code>' + p.hash_start.slice(0, 8) + "&hellip;" + p.hash_end.slice(0, 8) +
        "</code></td><td>" + num(p.item_count || 0) + "</td><td>" + num(p.size_bytes || 0) +
        '</td><td class="l">' + bar(w.consumed_last_second || 0, w.ceiling_per_second || 0, "w", w.share_per_second) +
        '</td><td class="l">' + bar(r.consumed_last_second || 0, r.ceiling_per_second || 0, "r", r.share_per_second) +
        '</td><td class="l">' + bucket(w, od) + "</td><td>" + thr(p.write) + "</td><td>" + thr(p.read) + "</td></tr>";
    }).join("");
  });
}

// The history: the table chart and one card per partition.
function loadHistory() {
  return j(base() + "/history?seconds=" + win).then(function (d) {
    if (!mine(d)) return;
    d.t1 = Math.floor(d.now_ms / 1000) - 1;
    last = d;
    draw();
  });
}
function draw() {
  var d = last;
  if (!d) return;
  var lim = d.limits || {}, od = lim.billing_mode == "PAY_PER_REQUEST", u = op == "write" ? "W" : "R";
  var lastT = d.table_seconds.length ? d.table_seconds[d.table_seconds.length - 1] : null;
  $("tsum").textContent = "(" + (od ? "on-demand, instant capacity " + num(lim[op + "_capacity"]) + " " + u + "RU/s"
    : "provisioned " + num(lim[op + "_provisioned"]) + " " + u + "CU/s") +
    (lastT ? "; last second: " + num(lastT[field("consumed")]) + " consumed, " + pl(lastT[op + "_throttles"], "throttle") : "") +
    (d.throttle_state ? "" : "; no requests yet") + ")";
  drawTable(d);
  var box = $("pcharts"), shown = d.partitions.slice(0, MAXCHARTS);
  if (box.getAttribute("data-n") != String(shown.length) + "/" + d.partition_count) {
    box.innerHTML = shown.map(function (p) {
      return '<div class="pcard" id="pc' + p.partition + '"><h3></h3><canvas class="chart" role="img" aria-label="partition ' +
        p.partition + '"></canvas></div>';
    }).join("") + (d.partition_count > shown.length ? '<p class="more">and ' + (d.partition_count - shown.length) +
      " more partitions: their numbers are in the table below</p>" : "");
    box.setAttribute("data-n", String(shown.length) + "/" + d.partition_count);
  }
  shown.forEach(function (p) {
    var card = $("pc" + p.partition), sec = p.seconds, ls = sec.length ? sec[sec.length - 1] : null;
    var np = now && now.partitions && now.partitions[p.partition], items = np ? np.item_count : null;
    var t1s = ls ? ls[op + "_throttles"] || 0 : 0;      // the last whole second
    card.className = "pcard" + (t1s ? " hot" : "");
    card.querySelector("h3").innerHTML = "#" + p.partition + " <small><code>" + esc((p.hash_start || "").slice(0, 6)) + "&hellip;" +
      esc((p.hash_end || "").slice(0, 6)) + "</code>" + (items != null ? " &middot; " + pl(items, "item") : "") + "</small>" +
      '<small class="' + (t1s ? "thr" : "z") + '">' + pl(t1s, "throttle") + "/s</small>";
    drawPart(card.querySelector("canvas"), p, d);
  });
  document.body.setAttribute("data-renders", String(++renders));
  document.body.setAttribute("data-table", key(want));
}
function hot() {
  return j(base() + "/hotkeys?n=8").then(function (d) {
    if (!mine(d)) return;
    var out = "";
    [["consumed_write", "most written (WCU)"], ["consumed_read", "most read (RCU)"],
     ["throttled_write", "most throttled writes"], ["throttled_read", "most throttled reads"]].forEach(function (k) {
      var l = d[k[0]] || [];
      out += "<table><caption>" + k[1] + '</caption><thead><tr><th class="l">key</th><th class="p" title="partition">#</th><th class="c">count</th></tr></thead><tbody>' +
        (l.length ? l.map(function (e) {
          return '<tr><td class="l" title="' + esc(e.key_text) + '">' + esc(e.key_text) + "</td><td>" + (e.partition == null ? "" : e.partition) + "</td><td>" + num(e.count) + "</td></tr>";
        }).join("") : '<tr><td class="l z" colspan="3">none</td></tr>') + "</tbody></table>";
    });
    $("hk").innerHTML = out;
  });
}
function refresh() {
  if (!want) return Promise.resolve();
  var w0 = key(want);
  return parts().then(function () { return Promise.all([loadHistory(), hot()]); }).then(function () {
    if (key(want) == w0 && gone) { gone = null; $("state").style.display = "none"; }
  }).catch(function (e) { if (e.nf && key(want) == w0) missing(); else throw e; });
}
function tick() {
  tables().then(function (have) {
    if (!want) return clear("No tables yet: waiting for one.");
    if (!have) return missing();
    return refresh();
  }).catch(function (e) { $("meta").textContent = "error: " + e; })
    .then(function () { setTimeout(tick, 1000); });
}
function setOp(o) {
  op = o;
  $("opw").setAttribute("aria-pressed", String(op == "write"));
  $("opr").setAttribute("aria-pressed", String(op == "read"));
  setUrl(); draw();
}
sel.onchange = function () {
  var v = sel.value, p = v.indexOf("/");
  want = p < 0 ? {t: v, i: ""} : {t: v.slice(0, p), i: v.slice(p + 1)};
  last = null; $("pcharts").innerHTML = ""; $("pcharts").removeAttribute("data-n");
  setUrl();
  tables().then(function (have) { if (have) return refresh(); missing(); });
};
$("win").value = String(win);
$("win").onchange = function () { win = +$("win").value; setUrl(); if (want) loadHistory(); };
$("opw").onclick = function () { setOp("write"); };
$("opr").onclick = function () { setOp("read"); };
setOp(op);
window.addEventListener("resize", draw);
tick();
