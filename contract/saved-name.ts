// The name a visitor's file is saved under, by the service (its Content-Disposition) and by the
// console (its Download button): one rule, so every client saves it alike (decision 819).

/**
 * Extensions that open as what the service typed the file, the first one added when the name
 * has none of them. Text is only the plain kinds: a `.html`, `.svg`, `.js` or `.bat` holding
 * text would open from disk as a page or a script, and source code reads as well in `.py.txt`.
 */
const EXTENSIONS: Record<string, readonly string[]> = {
  'text/plain': ['.txt', '.text', '.log', '.csv', '.tsv', '.md', '.markdown', '.json', '.yaml', '.yml'],
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/gif': ['.gif'],
  'image/webp': ['.webp'],
  'application/pdf': ['.pdf'],
};

/**
 * `name` ending in an extension of `contentType` (the type the service read from the bytes):
 * as it is when it does (`app.log`, `Photo.JPG`), else with one added (`invoice.html.txt`,
 * `shot.txt.png`). A type without extensions here keeps `.bin`, which nothing opens.
 */
export function savedFileName(name: string, contentType: string): string {
  const type = contentType.split(';')[0].trim().toLowerCase();
  const extensions = EXTENSIONS[type] ?? ['.bin'];
  const lower = name.toLowerCase();
  return extensions.some((extension) => lower.endsWith(extension) && lower.length > extension.length)
    ? name
    : `${name}${extensions[0]}`;
}
