// The main menu on a phone: the first three places (two on a small phone) stay in the header and the rest go under a
// "More" button (a disclosure: the button says whether its list is open), instead of a menu that
// scrolls sideways. Wider screens show every place in a row, as the page's own HTML has them.
// The links are moved, never copied, so the page's current place is marked wherever they are.

const PHONE = "(max-width: 640px)";
const NARROW = "(max-width: 379px)"; // a small phone: two places stay, not three

export function installNavMore() {
  const nav = document.querySelector(".site-nav");
  if (!nav || nav.querySelector(".nav-more")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "nav-more";
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", "nav-more-list");
  button.innerHTML = 'More <span aria-hidden="true">\u25be</span>';
  const list = document.createElement("div");
  list.id = "nav-more-list";
  list.className = "nav-more-list";
  list.hidden = true;
  nav.append(button, list);

  const open = (on) => {
    button.setAttribute("aria-expanded", String(on));
    list.hidden = !on;
  };
  const marked = () => button.classList.toggle("has-current", !!list.querySelector('a[aria-current="page"]'));
  const place = () => {
    const phone = window.matchMedia(PHONE).matches;
    list.querySelectorAll("a").forEach((a) => nav.insertBefore(a, button));
    if (phone) {
      const keep = window.matchMedia(NARROW).matches ? 2 : 3;
      const links = [...nav.children].filter((el) => el.tagName === "A");
      links.slice(keep).forEach((a) => list.append(a));
    } else open(false);
    nav.classList.toggle("has-more", phone && list.children.length > 0);
    marked();
  };

  button.addEventListener("click", () => open(list.hidden));
  list.addEventListener("click", (e) => {
    if (e.target.closest("a")) open(false);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !list.hidden) {
      open(false);
      button.focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (!list.hidden && !nav.contains(e.target)) open(false);
  });
  window.addEventListener("hashchange", () => {
    open(false);
    // main.js marks the current place after routing: follow it on the button.
    setTimeout(marked, 0);
  });
  window.matchMedia(PHONE).addEventListener("change", place);
  window.matchMedia(NARROW).addEventListener("change", place);
  place();
}
