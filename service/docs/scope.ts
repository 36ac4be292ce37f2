/**
 * Where a crawl may go: one origin, under one folder, and only to addresses that can be pages.
 * The crawl starts with the start address's scope and moves it when that address redirects.
 */

/** Extensions worth fetching: pages. Anything else with an extension (images, archives, sources) is not. */
const PAGE_EXTENSIONS = new Set([
  'html',
  'htm',
  'xhtml',
  'shtml',
  'php',
  'asp',
  'aspx',
  'jsp',
  'md',
  'markdown',
  'pdf',
]);

/** The folder of a path: through its last `/`. */
const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/') + 1);

export class Scope {
  private constructor(
    readonly origin: string,
    /** Paths start with it: `/docs/`, or `/`. */
    readonly prefix: string,
  ) {}

  /** The start's origin, under its folder: `/docs` and `/docs/` are `/docs/`, `/docs/a.html` is `/docs/`. */
  static of(start: string): Scope {
    const { origin, pathname: path } = new URL(start);
    const last = path.slice(path.lastIndexOf('/') + 1);
    return new Scope(origin, last.includes('.') ? folderOf(path) : last ? `${path}/` : path);
  }

  includes(url: string): boolean {
    const parsed = new URL(url);
    if (parsed.origin !== this.origin) return false;
    const path = parsed.pathname;
    if (!(path.startsWith(this.prefix) || `${path}/` === this.prefix)) return false;
    const last = path.slice(path.lastIndexOf('/') + 1);
    const dot = last.lastIndexOf('.');
    return dot < 0 || PAGE_EXTENSIONS.has(last.slice(dot + 1).toLowerCase());
  }

  /**
   * The scope after the start address `from` redirected to `target` outside it (decision 429):
   * the same folder on the new host for the same path (`http:` to `https:`), else the target's
   * folder (a root sent to `/en/latest/` is the site there; one sent to `/introduction`, the site
   * at `/`, not one page).
   */
  movedTo(from: string, target: string): Scope {
    const to = new URL(target);
    return new Scope(to.origin, to.pathname === new URL(from).pathname ? this.prefix : folderOf(to.pathname));
  }
}
