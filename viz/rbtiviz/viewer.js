// SPDX-License-Identifier: GPL-2.0
"use strict";
const DATA = JSON.parse(document.getElementById("data").textContent);
const $ = (id) => document.getElementById(id);
const DX = 18, DY = 44;          // world units: one in-order rank, one level
const DIRECT_MAX = 3000;         // more nodes on screen: draw the cached overview
const OVERVIEW_W = 4096, OVERVIEW_LEVEL = 12;
// The legend (viewer.html's #legend) shows each of these colours.
const RED = "#c62828", BLACK = "#212121", EDGE = "#9e9e9e", AMBER = "#ffb300",
      BLUE = "#1e88e5", GREEN = "#43a047", CACHE = "#8e24aa";
const FLIP = DATA.mode === "flipbook";
const canvas = $("canvas"), ctx = canvas.getContext("2d");
const mini = $("minimap"), mctx = mini.getContext("2d");

let T = null, frame = 0;
let view = {sx: 1, sy: 1, tx: 0, ty: 0};     // screen = world * s + t
let P, size, collapsed, rank, depth, order, maxDepth, overview = null;
let sel = -1, vcur = -1, matches = [], mcur = -1, timer = null, copy = 0;

function load(i) {
  frame = Math.max(0, Math.min(DATA.frames.length - 1, i));
  const F = DATA.frames[frame];     // a latch tree's: copy 0, copy 1 as F.copy1
  T = copy && F.copy1 ? F.copy1 : F;
  const n = T.ids.length;
  P = new Int32Array(n).fill(-1);
  for (let j = 0; j < n; j++) {
    if (T.L[j] >= 0) P[T.L[j]] = j;
    if (T.R[j] >= 0) P[T.R[j]] = j;
  }
  size = new Int32Array(n).fill(1);            // indices are in preorder
  for (let j = n - 1; j > 0; j--) size[P[j]] += size[j];
  collapsed = new Uint8Array(n);
  T.blamed = new Map();
  T.violations.forEach((v, k) => {
    if (v[0] >= 0) { if (!T.blamed.has(v[0])) T.blamed.set(v[0], []); T.blamed.get(v[0]).push(k); }
  });
  T.changedSet = new Set(T.changed || []);
  T.newSet = new Set(T.newlinks || []);
  T.badOf = new Map();
  for (const b of T.bad) { if (!T.badOf.has(b[0])) T.badOf.set(b[0], []); T.badOf.get(b[0]).push(b); }
  sel = -1; vcur = -1; matches = []; mcur = -1;
  $("name").textContent = T.name;
  const nv = T.violations.length;
  $("stats").textContent = `${T.api}: ${T.flags} \u00b7 ${T.count} nodes \u00b7 height ${T.height}` +
    (nv ? ` \u00b7 ${nv} violation${nv > 1 ? "s" : ""}` : " \u00b7 ok") +
    (T.unreached.length ? ` \u00b7 not drawn (unreachable): #${T.unreached.slice(0, 8).join(", #")}` +
     (T.unreached.length > 8 ? " ..." : "") : "") +
    (F.copy1 ? ` \u00b7 latch tree: copy ${T === F ? 0 : 1} of 2` : "");
  $("copy").hidden = $("copyhelp").hidden = !F.copy1;
  $("copy").textContent = `show copy ${T === F ? 1 : 0}`;
  $("info").textContent = "";
  relayout();
}

function relayout() {
  const n = T.ids.length;
  rank = new Int32Array(n).fill(-1);
  depth = new Int32Array(n);
  for (let j = 1; j < n; j++) depth[j] = depth[P[j]] + 1;
  order = [];
  maxDepth = 0;
  const stack = [];
  let i = n ? 0 : -1;
  while (stack.length || i >= 0) {
    while (i >= 0) { stack.push(i); i = collapsed[i] ? -1 : T.L[i]; }
    i = stack.pop();
    rank[i] = order.length;
    order.push(i);
    if (depth[i] > maxDepth) maxDepth = depth[i];
    i = collapsed[i] ? -1 : T.R[i];
  }
  overview = null;
}

const wx = (i) => rank[i] * DX, wy = (i) => depth[i] * DY;
const sxOf = (i) => view.tx + wx(i) * view.sx, syOf = (i) => view.ty + wy(i) * view.sy;

function resize() {
  const r = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(r.width));
  canvas.height = Math.max(1, Math.round(r.height));
}

function fitY() {
  return Math.min(1, (canvas.height - 60) / Math.max(DY, maxDepth * DY));
}

function fit() {
  const W = canvas.width, H = canvas.height;
  view.sx = Math.min(2, (W - 60) / Math.max(DX, (order.length - 1) * DX));
  view.sy = fitY();
  view.tx = (W - (order.length - 1) * DX * view.sx) / 2;
  view.ty = Math.max(30, (H - maxDepth * DY * view.sy) / 2);
  draw();
}

function zoomAt(x, y, factor) {
  const sx = Math.max(1e-5, Math.min(4, view.sx * factor));
  const sy = Math.max(fitY(), Math.min(1.5, view.sy * factor));
  view.tx = x - (x - view.tx) * sx / view.sx;
  view.ty = y - (y - view.ty) * sy / view.sy;
  view.sx = sx; view.sy = sy;
  draw();
}

function pan(dx, dy) { view.tx += dx; view.ty += dy; draw(); }

// What drawing costs, counted for the self test: frames, the most nodes
// one frame drew one by one (at most DIRECT_MAX, whatever the tree's
// size: more and the frame is the overview bitmap), overviews built.
const work = {frames: 0, maxNodes: 0, overviews: 0};

function buildOverview() {
  work.overviews++;
  const N = Math.max(1, order.length);
  const c = document.createElement("canvas");
  c.width = Math.min(OVERVIEW_W, Math.max(4 * N, 600));
  c.height = (maxDepth + 1) * OVERVIEW_LEVEL + 2;
  const o = c.getContext("2d"), kx = (c.width - 1) / Math.max(1, N - 1);
  const ox = (i) => rank[i] * kx + 0.5, oy = (i) => depth[i] * OVERVIEW_LEVEL + 1;
  o.fillStyle = "#fff"; o.fillRect(0, 0, c.width, c.height);
  o.strokeStyle = EDGE; o.lineWidth = 0.6; o.beginPath();
  for (const i of order) {
    const p = P[i];
    if (p >= 0) { o.moveTo(ox(p), oy(p)); o.lineTo(ox(i), oy(i)); }
  }
  o.stroke();
  for (const [colour, want] of [[BLACK, "B"], [RED, "R"]]) {
    o.fillStyle = colour; o.beginPath();
    for (const i of order) if (T.colors[i] === want) o.rect(ox(i) - 1, oy(i) - 2, 2, 4);
    o.fill();
  }
  overview = {canvas: c, kx, N};
}

function edgePath(list, from, to) { list.push(sxOf(from), syOf(from), sxOf(to), syOf(to)); }

function draw() {
  const W = canvas.width, H = canvas.height;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
  if (!order.length) {
    ctx.fillStyle = "#555"; ctx.font = "16px sans-serif"; ctx.fillText("(empty tree)", 20, 40);
    drawMinimap(); return;
  }
  const colw = DX * view.sx;
  const lo = Math.max(0, Math.floor(-view.tx / colw) - 1);
  const hi = Math.min(order.length - 1, Math.ceil((W - view.tx) / colw) + 1);
  work.frames++;
  if (hi - lo + 1 > DIRECT_MAX) drawOverview();
  else if (hi >= lo) { work.maxNodes = Math.max(work.maxNodes, hi - lo + 1); drawDirect(lo, hi); }
  drawMarks();
  drawMinimap();
}

function drawOverview() {
  if (!overview) buildOverview();
  const o = overview, kx = DX * view.sx / o.kx, ky = DY * view.sy / OVERVIEW_LEVEL;
  ctx.imageSmoothingEnabled = true;
  ctx.drawImage(o.canvas, view.tx - 0.5 * kx, view.ty - 1 * ky, o.canvas.width * kx, o.canvas.height * ky);
}

function drawDirect(lo, hi) {
  const lines = [], fresh = [];
  const addEdge = (p, c) => (T.newSet.has(c) ? fresh : lines).push(p, c);
  for (let k = lo; k <= hi; k++) {
    const i = order[k];
    if (P[i] >= 0) addEdge(P[i], i);
    if (!collapsed[i]) {
      if (T.L[i] >= 0 && rank[T.L[i]] < lo) addEdge(i, T.L[i]);
      if (T.R[i] >= 0 && rank[T.R[i]] > hi) addEdge(i, T.R[i]);
    }
  }
  // Edges crossing the view with both ends outside join ancestors of order[lo].
  for (let a = P[order[lo]]; a >= 0; a = P[a]) {
    for (const c of [T.L[a], T.R[a]]) if (c >= 0 && (rank[c] < lo || rank[c] > hi) && (rank[a] < lo || rank[a] > hi)) addEdge(a, c);
  }
  const stroke = (list, colour, width) => {
    ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.beginPath();
    for (let k = 0; k < list.length; k += 2) {
      ctx.moveTo(sxOf(list[k]), syOf(list[k])); ctx.lineTo(sxOf(list[k + 1]), syOf(list[k + 1]));
    }
    ctx.stroke();
  };
  stroke(lines, EDGE, 1);
  stroke(fresh, BLUE, 3);
  const r = Math.max(1.5, Math.min(9, DX * view.sx * 0.4, DY * view.sy * 0.3));
  // Links that are not tree edges (a corrupted tree): dashed red stubs.
  ctx.setLineDash([4, 3]); ctx.strokeStyle = RED; ctx.lineWidth = 1.5; ctx.beginPath();
  for (let k = lo; k <= hi; k++) {
    for (const b of T.badOf.get(order[k]) || []) {
      const i = b[0], x = sxOf(i), y = syOf(i);
      ctx.moveTo(x, y); ctx.lineTo(x + (b[1] === "L" ? -1 : 1) * DX * view.sx * 0.8, y + DY * view.sy * 0.6);
    }
  }
  ctx.stroke(); ctx.setLineDash([]);
  for (const [colour, want] of [[BLACK, "B"], [RED, "R"]]) {
    ctx.fillStyle = colour; ctx.beginPath();
    for (let k = lo; k <= hi; k++) {
      const i = order[k];
      if (T.colors[i] !== want) continue;
      const x = sxOf(i), y = syOf(i);
      if (collapsed[i]) {
        ctx.moveTo(x, y - r); ctx.lineTo(x + r * 1.6, y + r * 1.8); ctx.lineTo(x - r * 1.6, y + r * 1.8); ctx.closePath();
      } else if (r < 2.5) ctx.rect(x - r, y - r, 2 * r, 2 * r);
      else { ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI); }
    }
    ctx.fill();
  }
  if (DX * view.sx >= 16 && DY * view.sy >= 22) {
    ctx.font = "11px sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "top";
    ctx.fillStyle = "#212121";
    for (let k = lo; k <= hi; k++) {
      const i = order[k];
      let label = String(T.keys[i]);
      if (T.dup || T.blamed.has(i)) label += " #" + T.ids[i];
      if (T.augs) label += " " + T.aug + "=" + T.augs[i];
      if (T.values) label += " " + T.value + "=" + T.values[i];
      if (collapsed[i]) label += " (+" + (size[i] - 1) + ")";
      if (DX * view.sx < label.length * 6.5 && DX * view.sx < 40) label = String(T.keys[i]);
      ctx.fillText(label, sxOf(i), syOf(i) + r + 2 + (collapsed[i] ? r : 0));
    }
    const bads = [];
    for (let k = lo; k <= hi; k++) for (const b of T.badOf.get(order[k]) || []) bads.push(b);
    ctx.fillStyle = RED;
    for (const b of bads) {
      const x = sxOf(b[0]) + (b[1] === "L" ? -1 : 1) * DX * view.sx * 0.8, y = syOf(b[0]) + DY * view.sy * 0.6;
      ctx.fillText("#" + b[2] + "? " + b[3], x, y + 2);
    }
  }
}

function ring(i, colour, width, extra) {
  if (i < 0 || rank[i] < 0) return;
  const r = Math.max(3, Math.min(9, DX * view.sx * 0.4, DY * view.sy * 0.3)) + extra;
  ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.beginPath();
  ctx.arc(sxOf(i), syOf(i), r, 0, 2 * Math.PI); ctx.stroke();
}

// The cached leftmost (L) or rightmost (R): a ring, and its letter on its side.
function cacheMark(i, letter, side) {
  ring(i, CACHE, 2, 9);
  const r = Math.max(3, Math.min(9, DX * view.sx * 0.4, DY * view.sy * 0.3)) + 11;
  ctx.font = "bold 12px sans-serif"; ctx.textAlign = side < 0 ? "right" : "left"; ctx.textBaseline = "middle";
  ctx.fillStyle = CACHE; ctx.fillText(letter, sxOf(i) + side * r, syOf(i));
}

function drawMarks() {
  const W = canvas.width;
  const visible = (i) => rank[i] >= 0 && sxOf(i) > -20 && sxOf(i) < W + 20;
  for (const i of T.changedSet) if (visible(i)) ring(i, BLUE, 3, 3);
  for (const i of T.blamed.keys()) if (visible(i)) ring(i, AMBER, 3, 3);
  for (const i of matches) if (visible(i)) ring(i, GREEN, 2, 6);
  if (T.leftmost >= 0 && visible(T.leftmost)) cacheMark(T.leftmost, "L", -1);
  if (T.rightmost >= 0 && visible(T.rightmost)) cacheMark(T.rightmost, "R", 1);
  if (sel >= 0 && visible(sel)) { ring(sel, "#000", 2.5, 7); ring(sel, "#fff", 1, 9); }
}

function miniScale() {
  return {kx: (mini.width - 8) / Math.max(1, (order.length - 1) * DX),
          ky: (mini.height - 8) / Math.max(1, maxDepth * DY)};
}

function drawMinimap() {
  mctx.setTransform(1, 0, 0, 1, 0, 0);
  mctx.fillStyle = "#fff"; mctx.fillRect(0, 0, mini.width, mini.height);
  if (!order.length) return;
  if (!overview) buildOverview();
  mctx.imageSmoothingEnabled = true;
  mctx.drawImage(overview.canvas, 4, 4, mini.width - 8, mini.height - 8);
  const m = miniScale();
  const x0 = (-view.tx / view.sx) * m.kx + 4, x1 = ((canvas.width - view.tx) / view.sx) * m.kx + 4;
  const y0 = (-view.ty / view.sy) * m.ky + 4, y1 = ((canvas.height - view.ty) / view.sy) * m.ky + 4;
  mctx.strokeStyle = BLUE; mctx.lineWidth = 1.5;
  mctx.strokeRect(x0, y0, Math.max(2, x1 - x0), Math.max(2, y1 - y0));
  mctx.fillStyle = AMBER;
  for (const i of T.blamed.keys()) if (rank[i] >= 0) mctx.fillRect(wx(i) * m.kx + 3, wy(i) * m.ky + 3, 3, 3);
}

function nodeAt(x, y) {
  const colw = DX * view.sx;
  const lo = Math.max(0, Math.floor((x - 12 - view.tx) / colw));
  const hi = Math.min(order.length - 1, Math.ceil((x + 12 - view.tx) / colw), lo + 400);
  let best = -1, bestd = 14 * 14;
  for (let k = lo; k <= hi; k++) {
    const i = order[k], dx = sxOf(i) - x, dy = syOf(i) - y, d = dx * dx + dy * dy;
    if (d < bestd) { best = i; bestd = d; }
  }
  return best;
}

function reveal(i) {
  let changed = false;
  for (let a = P[i]; a >= 0; a = P[a]) if (collapsed[a]) { collapsed[a] = 0; changed = true; }
  if (changed) relayout();
}

function centerOn(i) {
  reveal(i);
  if (DX * view.sx < 24) view.sx = 30 / DX;
  if (DY * view.sy < 30) view.sy = Math.min(1, Math.max(fitY(), 40 / DY));
  view.tx = canvas.width / 2 - wx(i) * view.sx;
  view.ty = canvas.height / 2 - wy(i) * view.sy;
}

const ref = (j) => (j >= 0 ? "#" + T.ids[j] + " (key " + T.keys[j] + ")" : "-");

function select(i, center) {
  sel = i;
  if (i < 0) { $("info").textContent = ""; draw(); return; }
  if (center) centerOn(i); else reveal(i);
  const lines = [
    `node #${T.ids[i]}`, `key    ${T.keys[i]}`, `color  ${T.colors[i] === "R" ? "red" : "black"}`,
    `parent ${T.parents[i] === null ? "-" : T.parents[i] === "?" ? "? (no node of this tree)" : "#" + T.parents[i]}` +
      (P[i] >= 0 && T.parents[i] !== T.ids[P[i]] ? `  (linked from ${ref(P[i])})` : ""),
    `left   ${ref(T.L[i])}`, `right  ${ref(T.R[i])}`];
  for (const b of T.badOf.get(i) || []) lines.push(`${b[1] === "L" ? "left " : "right"}  #${b[2]}: ${b[3]}`);
  if (T.augs) lines.push(`${T.aug.padEnd(6)} ${T.augs[i]}`);
  if (T.values) lines.push(`${T.value.padEnd(6)} ${T.values[i]}`);
  lines.push(`depth  ${depth[i] + 1}`, `subtree ${size[i]} nodes${collapsed[i] ? " (collapsed)" : ""}`);
  if (i === T.leftmost) lines.push("cached leftmost");
  if (i === T.rightmost) lines.push("cached rightmost");
  if (T.changedSet.has(i)) lines.push("changed in this step");
  for (const k of T.blamed.get(i) || []) lines.push(`!! ${T.violations[k][1]}: ${T.violations[k][2]}`);
  $("info").textContent = lines.join("\n");
  draw();
}

function search(text) {
  text = text.trim();
  if (!text) return;
  const key = text.replace(/^#/, "");
  const byId = text.startsWith("#");
  const found = [];
  for (let i = 0; i < T.ids.length; i++) if (String(byId ? T.ids[i] : T.keys[i]) === key) found.push(i);
  const same = found.length === matches.length && found.every((v, k) => v === matches[k]);
  if (!same) { matches = found; mcur = -1; }
  if (!matches.length) { $("status").textContent = `no ${byId ? "id" : "key"} ${key}`; draw(); return; }
  matches.sort((a, b) => (a === b ? 0 : T.keys[a] < T.keys[b] ? -1 : 1));
  mcur = (mcur + 1) % matches.length;
  select(matches[mcur], true);
  $("status").textContent = `match ${mcur + 1} / ${matches.length}`;
}

function violation(step) {
  const nv = T.violations.length;
  if (!nv) { $("status").textContent = "no violations"; return; }
  vcur = ((vcur < 0 && step < 0 ? 0 : vcur) + step + nv) % nv;
  const v = T.violations[vcur];
  $("status").textContent = `violation ${vcur + 1} / ${nv}: ${v[1]}: ${v[2]}`;
  if (v[0] >= 0) select(v[0], true); else draw();
}

function toggleCollapse(i) {
  if (i < 0 || (T.L[i] < 0 && T.R[i] < 0)) return;
  collapsed[i] ^= 1;
  const x = sxOf(i);
  relayout();
  view.tx = x - wx(i) * view.sx;     // keep the node where it was
  select(i, false);
}

// A latch tree: the other copy, in the same view, its selected node kept.
function toggleCopy() {
  if (!DATA.frames[frame].copy1) return;
  const id = sel >= 0 ? T.ids[sel] : null, keep = {...view};
  copy ^= 1;
  if (FLIP) show(frame); else { load(frame); view = keep; draw(); }
  const j = id === null ? -1 : T.ids.indexOf(id);
  if (j >= 0) select(j, false);
}

function expandAll() { collapsed.fill(0); relayout(); if (sel >= 0) select(sel, true); else fit(); }

function show(i) {
  const keep = {...view};
  load(i);
  view = keep;
  view.sy = Math.max(fitY(), Math.min(1.5, view.sy));
  const f = DATA.frames[frame];
  $("pos").textContent = `frame ${frame + 1} / ${DATA.frames.length}`;
  $("slider").value = frame + 1;
  $("caption").textContent = f.heading + ": " + f.caption;
  document.querySelectorAll("#frames li").forEach((li, n) => li.classList.toggle("current", n === frame));
  history.replaceState(null, "", "#" + (frame + 1));
  draw();
}

function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "play"; return; }
  if (frame === DATA.frames.length - 1) show(0);
  $("play").textContent = "pause";
  timer = setInterval(() => { if (frame >= DATA.frames.length - 1) play(); else show(frame + 1); }, 800);
}

// Events.
let drag = null;
canvas.addEventListener("mousedown", (e) => { drag = {x: e.clientX, y: e.clientY, moved: false}; });
window.addEventListener("mousemove", (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
  drag.x = e.clientX; drag.y = e.clientY;
  if (drag.moved) pan(dx, dy);
});
window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); });
canvas.addEventListener("click", (e) => {
  if (drag && drag.moved) return;
  const r = canvas.getBoundingClientRect();
  select(nodeAt(e.clientX - r.left, e.clientY - r.top), false);
});
canvas.addEventListener("dblclick", (e) => {
  const r = canvas.getBoundingClientRect();
  toggleCollapse(nodeAt(e.clientX - r.left, e.clientY - r.top));
});
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  const r = canvas.getBoundingClientRect();
  zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.002));
}, {passive: false});
mini.addEventListener("click", (e) => {
  const r = mini.getBoundingClientRect(), m = miniScale();
  const x = (e.clientX - r.left - 4) / m.kx, y = (e.clientY - r.top - 4) / m.ky;
  view.tx = canvas.width / 2 - x * view.sx;
  view.ty = canvas.height / 2 - y * view.sy;
  draw();
});
$("find").onclick = () => search($("search").value);
$("search").addEventListener("keydown", (e) => {
  if (e.key === "Enter") { e.preventDefault(); search($("search").value); }
  else if (e.key === "Escape") $("search").blur();
});
$("vnext").onclick = () => violation(1);
$("vprev").onclick = () => violation(-1);
$("collapse").onclick = () => toggleCollapse(sel);
$("expand").onclick = expandAll;
$("fit").onclick = fit;
$("copy").onclick = toggleCopy;
$("first").onclick = () => show(0);
$("prev").onclick = () => show(frame - 1);
$("next").onclick = () => show(frame + 1);
$("last").onclick = () => show(DATA.frames.length - 1);
$("play").onclick = play;
$("slider").oninput = (e) => show(Number(e.target.value) - 1);
document.querySelectorAll("#frames a").forEach((a, n) => {
  a.onclick = (e) => { e.preventDefault(); show(n); };
});
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
  const step = 120;
  const frameKeys = {ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10};
  if (FLIP && !e.shiftKey && e.key in frameKeys) show(frame + frameKeys[e.key]);
  else if (FLIP && e.key === "Home") show(0);
  else if (FLIP && e.key === "End") show(DATA.frames.length - 1);
  else if (FLIP && e.key === " ") play();
  else if (e.key === "ArrowLeft") pan(step, 0);
  else if (e.key === "ArrowRight") pan(-step, 0);
  else if (e.key === "ArrowUp") pan(0, step);
  else if (e.key === "ArrowDown") pan(0, -step);
  else if (e.key === "+" || e.key === "=") zoomAt(canvas.width / 2, canvas.height / 2, 1.5);
  else if (e.key === "-") zoomAt(canvas.width / 2, canvas.height / 2, 1 / 1.5);
  else if (e.key === "f" || e.key === "0") fit();
  else if (e.key === "n") violation(1);
  else if (e.key === "p") violation(-1);
  else if (e.key === "c") toggleCollapse(sel);
  else if (e.key === "e") expandAll();
  else if (e.key === "l") toggleCopy();
  else if (e.key === "/") $("search").focus();
  else if (e.key === "Escape") select(-1);
  else return;
  e.preventDefault();
});
window.addEventListener("resize", () => { resize(); draw(); });

function start() {
  resize();
  if (FLIP) {
    $("flipbar").hidden = false; $("caption").hidden = false;
    $("fliphelp").hidden = false; $("panhelp").hidden = true;
    $("slider").max = DATA.frames.length;
    load(Math.max(0, Math.min(DATA.frames.length - 1, (Number(location.hash.slice(1)) || 1) - 1)));
    fit();
    show(frame);
  } else {
    load(0);
    fit();
  }
}
start();

// Self test (?selftest): drive the page through its own event handlers and
// write what it saw into #selftest, for a headless browser's --dump-dom.
function selftest() {
  const out = {mode: DATA.mode, nodes: T.ids.length, visible: order.length, canvas: [canvas.width, canvas.height]};
  const flush = () => ctx.getImageData(0, 0, 1, 1);
  const key = (k, extra) => document.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true, ...extra}));
  const selected = () => (sel >= 0 ? String(T.ids[sel]) : null);
  const clickAt = (target, x, y, type) => {
    const r = target.getBoundingClientRect();
    const init = {clientX: r.left + x, clientY: r.top + y, bubbles: true, cancelable: true};
    target.dispatchEvent(new MouseEvent("mousedown", init));
    window.dispatchEvent(new MouseEvent("mouseup", init));
    drag = null;
    target.dispatchEvent(new MouseEvent(type || "click", init));
  };
  if (FLIP) {
    out.frames = DATA.frames.length;
    const state = () => ({frame: frame + 1, pos: $("pos").textContent, caption: $("caption").textContent,
                          hash: location.hash, nodes: T.ids.length, changed: (T.changed || []).length,
                          newlinks: (T.newlinks || []).length});
    out.steps = [state()];
    for (const s of ["ArrowRight", "ArrowRight", "ArrowLeft", "End", "ArrowRight", "Home", "ArrowLeft",
                     "click:next", "click:last", "click:prev", "click:first", "click:next"]) {
      if (s.startsWith("click:")) $(s.slice(6)).click(); else key(s);
      out.steps.push(state());
    }
    out.labels = ["first", "prev", "play", "next", "last"].map((id) => $(id).textContent);
  }
  // Search a key (through the input's Enter), then click a node's circle.
  const mid = order[Math.floor(order.length / 2)];
  if (mid !== undefined) {
    $("search").value = String(T.keys[mid]);
    $("search").dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
    out.search = {key: String(T.keys[mid]), selected: selected(), selectedKey: sel >= 0 ? String(T.keys[sel]) : null,
                  status: $("status").textContent, info: $("info").textContent};
    const other = T.L[mid] >= 0 ? T.L[mid] : T.R[mid] >= 0 ? T.R[mid] : P[mid];
    if (other >= 0) {
      clickAt(canvas, sxOf(other), syOf(other));
      out.click = {want: String(T.ids[other]), selected: selected(), info: $("info").textContent};
    }
    $("search").value = "#" + T.ids[0];
    $("find").click();
    out.searchId = {want: String(T.ids[0]), selected: selected()};
    $("search").value = "no such key";
    $("find").click();
    out.searchMiss = $("status").textContent;
  }
  // Violations: n, n, p.
  out.violations = [];
  for (const k of ["n", "n", "p"]) { key(k); out.violations.push({selected: selected(), status: $("status").textContent}); }
  // A latch tree: l shows copy 1, l again copy 0.
  const seen = () => ({nodes: T.ids.length, stats: $("stats").textContent, button: $("copy").textContent,
                       hidden: $("copy").hidden, violations: T.violations.map((v) => v[1])});
  if (DATA.frames[frame].copy1) { const was = seen(); key("l"); const other = seen(); key("l"); out.copy = [was, other, seen()]; }
  // Collapse the root's left subtree, then expand all.
  if (T.L[0] >= 0) {
    select(T.L[0], true);
    const before = order.length;
    key("c");
    out.collapse = {before, after: order.length, size: size[T.L[0]], info: $("info").textContent};
    key("e");
    out.expanded = order.length;
  }
  // Keyboard zoom, minimap click.
  fit();
  const sx0 = view.sx;
  key("+"); key("+");
  out.zoom = view.sx / sx0;
  const tx0 = view.tx;
  clickAt(mini, mini.width / 4, mini.height / 2);
  out.minimapMoved = view.tx !== tx0;
  // Latency: wheel and drag events, each drawn synchronously, raster flushed.
  fit();
  const times = [];
  const before = {...work};
  work.maxNodes = 0;
  for (let k = 0; k < 40; k++) {
    const t0 = performance.now();
    if (k % 4 === 3) {
      const x = canvas.width / 2, y = canvas.height / 2, r = canvas.getBoundingClientRect();
      canvas.dispatchEvent(new MouseEvent("mousedown", {clientX: r.left + x, clientY: r.top + y, bubbles: true}));
      window.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + x - 37, clientY: r.top + y + 5, bubbles: true}));
      window.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
      drag = null;
    } else {
      const r = canvas.getBoundingClientRect();
      canvas.dispatchEvent(new WheelEvent("wheel", {clientX: r.left + canvas.width * (0.3 + 0.01 * k),
        clientY: r.top + canvas.height / 2, deltaY: k < 24 ? -300 : 300, bubbles: true, cancelable: true}));
    }
    flush();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  out.latency = {median: times[times.length >> 1], p90: times[Math.floor(times.length * 0.9)],
                 max: times[times.length - 1], events: times.length};
  out.work = {frames: work.frames - before.frames, maxNodes: work.maxNodes,
              overviews: work.overviews - before.overviews, directMax: DIRECT_MAX};
  fit();
  document.getElementById("data").remove();    // keep the dumped DOM small
  const pre = $("selftest");
  pre.textContent = JSON.stringify(out);
  pre.hidden = false;
}
if (/[?&]selftest\b/.test(location.search)) selftest();
