/**
 * What a visitor meets before the widget's words arrive: the launcher's name in every bundled
 * language, and the page's language as the widget reads it. The launcher is on screen from the
 * first paint, named in the page's language at once, while the rest of that language's texts
 * load on demand (a German page never shows an "Open chat" button for a moment). A unit test
 * keeps this table equal to the locales' `openChat`.
 */
export const LAUNCHER_NAMES: Record<string, string> = {
  en: 'Open chat',
  ar: 'فتح الدردشة',
  de: 'Chat öffnen',
  es: 'Abrir chat',
  fr: 'Ouvrir le chat',
  he: 'פתיחת הצ׳אט',
  it: 'Apri la chat',
  ja: 'チャットを開く',
  ko: '채팅 열기',
  nl: 'Chat openen',
  pl: 'Otwórz czat',
  pt: 'Abrir chat',
  sv: 'Öppna chatten',
  tr: 'Sohbeti aç',
  zh: '打开聊天',
};

/** The launcher's name for a `lang` value (`de-AT`, `iw`), English for a language without texts. */
export function launcherName(lang: string): string {
  const language = lang.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return LAUNCHER_NAMES[language === 'iw' ? 'he' : language] ?? LAUNCHER_NAMES.en!;
}

/** The nearest `lang` on the page, crossing shadow roots, so a widget inside a component follows its page. */
export function nearestLang(element: Element): string {
  let node: Element | null = element;
  while (node) {
    const lang = node.getAttribute('lang');
    if (lang) return lang;
    node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host || null);
  }
  return '';
}
