// The figures of the court cards (jack, queen, king), drawn by this project as SVG: a
// double-headed bust like a printed deck's, the top half mirrored into the bottom, with the
// rank's headwear (a king's crown and beard, a queen's tiara and hair, a jack's cap and
// feather) and the suit's sign on the robe. Decorative: the card's button carries the label.

const NS = "http://www.w3.org/2000/svg";
const SUIT_SIGNS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

function el(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

const HEADWEAR = {
  // A crown of three points with jewels, and a beard.
  K: (robe) => [
    el("path", { d: "M21 15 L21 7 L25.5 11 L30 5 L34.5 11 L39 7 L39 15 Z", fill: "#f2b705", stroke: "#7a5200", "stroke-width": 0.8 }),
    el("circle", { cx: 30, cy: 9, r: 1.2, fill: robe }),
    el("path", { d: "M24 22 Q30 33 36 22 Q34 27 30 27.5 Q26 27 24 22 Z", fill: "#6d4c2f" }),
  ],
  // A tiara of pearls over long hair.
  Q: (robe) => [
    el("path", { d: "M22 16 Q21 27 20 33 L24 31 Q23 24 24 17 Z M38 16 Q39 27 40 33 L36 31 Q37 24 36 17 Z", fill: "#8d5a2b" }),
    el("path", { d: "M22 14 Q30 6 38 14 Q30 11 22 14 Z", fill: "#f2b705", stroke: "#7a5200", "stroke-width": 0.7 }),
    ...[24, 27, 30, 33, 36].map((x, i) => el("circle", { cx: x, cy: i === 2 ? 8.6 : i % 4 === 0 ? 12 : 9.8, r: 1, fill: i === 2 ? robe : "#fff" })),
  ],
  // A flat cap with a feather.
  J: (robe) => [
    el("path", { d: "M20 15 Q30 6 40 15 Z", fill: robe, stroke: "#1b1b1b", "stroke-width": 0.7 }),
    el("path", { d: "M36 12 Q44 4 47 7 Q42 8 38 13 Z", fill: "#f2b705" }),
    el("rect", { x: 20, y: 14, width: 20, height: 2.4, rx: 1, fill: "#f2b705" }),
  ],
};

/** The figure of a court card `code` ("Kh", "Qs", "Jd") as an SVG element. */
export function courtFigure(code) {
  const rank = code[0];
  const suit = code[1];
  const red = suit === "h" || suit === "d";
  const robe = red ? "#c62828" : "#1e3a8a";
  const trim = red ? "#1e3a8a" : "#c62828";
  const svg = el("svg", { viewBox: "0 0 60 84", class: `court-figure rank-${rank}`, "aria-hidden": "true", focusable: "false" });
  const half = el("g", {});
  half.append(
    // The robe and its trim, cut off at the card's middle.
    el("path", { d: "M10 42 Q11 33 20 30 L40 30 Q49 33 50 42 Z", fill: robe }),
    el("path", { d: "M24 30 L30 40 L36 30 Z", fill: "#f2b705" }),
    el("path", { d: "M10 42 Q11 33 20 30 L22 30 Q14 34 14 42 Z M50 42 Q49 33 40 30 L38 30 Q46 34 46 42 Z", fill: trim }),
    // The head.
    el("ellipse", { cx: 30, cy: 21, rx: 7, ry: 8, fill: "#f6d7b0", stroke: "#7a5a3a", "stroke-width": 0.6 }),
    el("circle", { cx: 27.5, cy: 20, r: 0.9, fill: "#1b1b1b" }),
    el("circle", { cx: 32.5, cy: 20, r: 0.9, fill: "#1b1b1b" }),
    el("path", { d: "M28 25 Q30 26.3 32 25", fill: "none", stroke: "#a0523c", "stroke-width": 0.8 }),
    ...HEADWEAR[rank](robe),
  );
  const sign = el("text", { x: 19, y: 40, "font-size": 9, "text-anchor": "middle", fill: "#fff" });
  sign.textContent = SUIT_SIGNS[suit];
  half.append(sign);
  const mirrored = half.cloneNode(true);
  mirrored.setAttribute("transform", "rotate(180 30 42)");
  svg.append(
    el("rect", { x: 3, y: 3, width: 54, height: 78, rx: 3, fill: "#fdf6e3", stroke: "currentColor", "stroke-width": 1.2 }),
    half,
    mirrored,
    el("line", { x1: 6, y1: 42, x2: 54, y2: 42, stroke: "currentColor", "stroke-width": 0.8 }),
  );
  return svg;
}
