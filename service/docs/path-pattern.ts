/**
 * A path pattern of literal parts between `*`s (any run of characters), matched from the path's
 * start, to its end only when `anchored` (robots.txt's `$`): the owner's exclude patterns (416)
 * and a site's robots.txt rules. Each part after a star is taken where it first occurs from
 * where the one before ended, which leaves the most room for the rest; only the last part of an
 * anchored pattern must end the path. One pass, where a regular expression of `.*`s backtracks
 * through every split of the path: a pattern of a few stars against a site's long link held
 * the event loop for minutes (decisions 758, 761).
 */
export function matchesParts(path: string, parts: readonly string[], anchored = false): boolean {
  if (!path.startsWith(parts[0])) return false;
  let at = parts[0].length;
  const last = parts.length - 1;
  if (last === 0) return !anchored || path.length === at;
  for (let i = 1; i < last; i++) {
    const found = path.indexOf(parts[i], at);
    if (found < 0) return false;
    at = found + parts[i].length;
  }
  return anchored
    ? path.length - parts[last].length >= at && path.endsWith(parts[last])
    : path.includes(parts[last], at);
}
