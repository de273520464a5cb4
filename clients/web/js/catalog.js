// What the server offers: its rule presets (GET /api/rules) and the computer's difficulties
// (GET /api/difficulties), each with the label and description a page shows. Asked once per
// page load (asked again after a failure); no name of a preset or a difficulty is written here.

import { api } from "./api.js";

let pending = null;
let loaded = null;

/** { rules: [{name, label, description, target, knock_limit, ...}], difficulties: [{name, label, description}] } */
export function loadCatalog() {
  if (!pending) {
    pending = Promise.all([api("GET", "/api/rules"), api("GET", "/api/difficulties")]).then(
      ([r, d]) => {
        loaded = { rules: r?.rules || [], difficulties: d?.difficulties || [] };
        return loaded;
      },
      (e) => {
        pending = null;
        throw e;
      },
    );
  }
  return pending;
}

/** The words for a preset's name ("House rules"); before the catalog has loaded, or for a
 * preset the server no longer lists, the name itself ("house rules"). */
export function rulesLabel(name) {
  return loaded?.rules.find((r) => r.name === name)?.label || `${name} rules`;
}
