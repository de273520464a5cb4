// What the browser remembers between visits: the player's identity (its token), the match being
// played, and per-match display preferences. Nothing here is game state: the server's view is
// the only truth, this is only how to find it again after a reload.

const PREFIX = "ginrummy.";
const DEVICE_KEYS = 8; // the accounts this browser keeps a device key for, most recent last

/** A username as the server compares them (NFKC, case folded; lower case is close enough). */
const usernameKey = (username) => String(username).trim().normalize("NFKC").toLowerCase();

function read(key, fallback = null) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback; // storage disabled (private mode) or a corrupt value: behave as if empty
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the game still works, it just will not resume after a reload.
  }
}

export const store = {
  /** {player_id, name, token} or null */
  get player() {
    return read("player");
  },
  set player(p) {
    write("player", p);
  },
  get currentMatch() {
    return read("current");
  },
  set currentMatch(id) {
    write("current", id);
  },
  /** Per-match extras the creator may want to share again later: {watch_token, invite}. */
  matchInfo(id) {
    return read(`match.${id}`, {});
  },
  saveMatchInfo(id, info) {
    write(`match.${id}`, { ...read(`match.${id}`, {}), ...info });
  },
  /** The hand ordering the player chose: {hand, mode, custom: [codes]}. */
  order(id) {
    return read(`order.${id}`, null);
  },
  saveOrder(id, order) {
    write(`order.${id}`, order);
  },
  /** The number of the last hand whose result the player has dismissed. */
  seenResult(id) {
    return read(`seen.${id}`, 0);
  },
  saveSeenResult(id, n) {
    write(`seen.${id}`, n);
  },
  /** This browser's device key for signing in to the account ``username`` (null: none yet). */
  deviceKey(username) {
    return read("devices", {})[usernameKey(username)] ?? null;
  },
  saveDeviceKey(username, key) {
    const keys = read("devices", {});
    const name = usernameKey(username);
    delete keys[name]; // saved again: it goes last, the newest
    keys[name] = key;
    const names = Object.keys(keys);
    for (const name of names.slice(0, Math.max(0, names.length - DEVICE_KEYS))) delete keys[name];
    write("devices", keys);
  },
  sortMode() {
    return read("sort", "best");
  },
  saveSortMode(mode) {
    write("sort", mode);
  },
};
