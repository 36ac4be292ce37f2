import '@fontsource-variable/noto-sans/wght.css';
import '@fontsource-variable/noto-sans/wght-italic.css';
import '@fontsource-variable/noto-sans-arabic/wght.css';
import '@fontsource-variable/noto-sans-hebrew/wght.css';
import monoLatin from '@fontsource-variable/noto-sans-mono/files/noto-sans-mono-latin-wght-normal.woff2?url';
import monoLatinExt from '@fontsource-variable/noto-sans-mono/files/noto-sans-mono-latin-ext-wght-normal.woff2?url';

/**
 * The screenshots' fonts come from npm (pinned devDependencies), not from the machine: the same
 * pixels whatever fonts the system has. Text uses the public font token; code has no token, so
 * the mono face is also registered under the first name of the widget's code stack
 * (`ui-monospace`, which Chromium on Linux matches as a plain family name). Every face is loaded
 * before the first screenshot, and `platformFonts` proves no glyph came from elsewhere.
 */
const TEXT_FONTS = "'Noto Sans Variable', 'Noto Sans Arabic Variable', 'Noto Sans Hebrew Variable'";

export async function useShippedFonts(): Promise<void> {
  const mono = [
    new FontFace('ui-monospace', `url(${monoLatin}) format('woff2')`, {
      weight: '100 900',
      unicodeRange:
        'U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD',
    }),
    new FontFace('ui-monospace', `url(${monoLatinExt}) format('woff2')`, {
      weight: '100 900',
      unicodeRange:
        'U+0100-02BA,U+02BD-02C5,U+02C7-02CC,U+02CE-02D7,U+02DD-02FF,U+0304,U+0308,U+0329,U+1D00-1DBF,U+1E00-1E9F,U+1EF2-1EFF,U+2020,U+20A0-20AB,U+20AD-20C0,U+2113,U+2C60-2C7F,U+A720-A7FF',
    }),
  ];
  for (const face of mono) document.fonts.add(face);
  const style = document.createElement('style');
  style.textContent = `agent-chat { --agent-chat-font-family: ${TEXT_FONTS}; }`;
  document.head.append(style);
  await Promise.all([...document.fonts].map((face) => face.load()));
}
