/**
 * What the agents say to visitors in words of their own (step summaries, fixed answers), in the
 * widget's 15 languages. The visitor's `locale` (wire contract §4) picks the language; anything
 * else falls back to English.
 */
import type { ToolCall } from '../../contract/types.js';

/** Plural forms by `Intl.PluralRules` category; `other` is the fallback. `{n}` is the count. */
type Plural = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

interface Table {
  /** Step summary while the docs are searched; `{q}` is the visitor's question, cut short. */
  searching: string;
  /** Step summary of a search the model made in its own words; `{q}` is its query, cut short. */
  searched: string;
  /** Step summary once the search found articles. */
  found: Plural;
  /** Step summary when nothing matched. */
  foundNone: string;
  /** The first sentence of an answer the docs do not cover. */
  notFound: string;
  /** The demo agent's suggestions after `notFound` on this widget's own articles (Markdown). */
  topics: string;
  /** One word of the visitor's in this language's quotation marks; `{w}` is the word. */
  word: string;
  /** The docs have none of these words of the question; `{words}` is them, quoted, as a list with "or". */
  notMentioned: string;
  /** Before the quote of the best section, when the docs lack some of the question's words. */
  closest: string;
  /** A client tool ran; generic, for languages whose sentence cannot be built from the tool's name. */
  toolDone: string;
  /** A client tool failed; `{error}` is the browser's reason. */
  toolFailed: string;
  /** The visitor refused a client tool. */
  toolDenied: string;
  /** The model has not started answering yet. */
  stillWorking: string;
  /** The model was busy or unreachable and is asked again. */
  retrying: string;
  /** The model started after `{n}` seconds. */
  startedAfter: string;
  /** The model never started: the first-token timeout ended the wait. */
  notStarted: string;
  /** The model never started: it failed (unreachable, refused, still busy after the retries). */
  notAnswered: string;
}

const TABLES: Record<string, Table> = {
  en: {
    searching: 'Searching the docs for “{q}”',
    searched: 'Searched the docs for “{q}”',
    found: { one: 'Found 1 article', other: 'Found {n} articles' },
    foundNone: 'No matching articles',
    notFound: "I couldn't find that in the docs.",
    word: '“{w}”',
    notMentioned: "The docs don't mention {words}.",
    closest: 'The closest I found:',
    topics:
      'Try asking about **installing the widget**, the **session endpoint**, **theming**, **events**, **conversation history** or **security**.',
    toolDone: 'Done. Anything else I can help with?',
    toolFailed: "That didn't work: {error}.",
    toolDenied: 'OK, I left that alone.',
    stillWorking: 'Still working on it…',
    retrying: 'The assistant is busy; trying again…',
    startedAfter: 'Started answering after {n} s',
    notStarted: "The answer didn't start in time",
    notAnswered: "The assistant couldn't answer",
  },
  ar: {
    searching: 'جارٍ البحث في الوثائق عن «{q}»',
    searched: 'تم البحث في الوثائق عن «{q}»',
    found: {
      one: 'تم العثور على مقال واحد',
      two: 'تم العثور على مقالين',
      few: 'تم العثور على {n} مقالات',
      many: 'تم العثور على {n} مقالًا',
      other: 'تم العثور على {n} مقال',
    },
    foundNone: 'لم يتم العثور على مقالات مطابقة',
    notFound: 'لم أجد ذلك في الوثائق.',
    word: '«{w}»',
    notMentioned: 'لا تذكر الوثائق {words}.',
    closest: 'أقرب ما وجدته:',
    topics:
      'جرّب السؤال عن **تثبيت الأداة** أو **نقطة نهاية الجلسة** أو **السمات** أو **الأحداث** أو **سجل المحادثات** أو **الأمان**.',
    toolDone: 'تم. هل يمكنني مساعدتك في شيء آخر؟',
    toolFailed: 'لم ينجح ذلك: {error}.',
    toolDenied: 'حسنًا، لن أفعل ذلك.',
    stillWorking: 'ما زلت أعمل على ذلك…',
    retrying: 'المساعد مشغول؛ جارٍ إعادة المحاولة…',
    startedAfter: 'بدأت الإجابة بعد {n} ث',
    notStarted: 'لم تبدأ الإجابة في الوقت المناسب',
    notAnswered: 'تعذّر على المساعد الإجابة',
  },
  de: {
    searching: 'Durchsuche die Dokumentation nach „{q}“',
    searched: 'Dokumentation nach „{q}“ durchsucht',
    found: { one: '1 Artikel gefunden', other: '{n} Artikel gefunden' },
    foundNone: 'Keine passenden Artikel',
    notFound: 'Dazu habe ich in der Dokumentation nichts gefunden.',
    word: '„{w}“',
    notMentioned: 'Die Dokumentation erwähnt {words} nicht.',
    closest: 'Das Nächstliegende, das ich gefunden habe:',
    topics:
      'Fragen Sie zum Beispiel nach der **Installation des Widgets**, dem **Session-Endpunkt**, **Theming**, **Events**, dem **Gesprächsverlauf** oder **Sicherheit**.',
    toolDone: 'Erledigt. Kann ich sonst noch helfen?',
    toolFailed: 'Das hat nicht geklappt: {error}.',
    toolDenied: 'In Ordnung, dann lasse ich das.',
    stillWorking: 'Einen Moment, ich arbeite noch daran…',
    retrying: 'Der Assistent ist ausgelastet, ich versuche es erneut…',
    startedAfter: 'Antwort begann nach {n} s',
    notStarted: 'Die Antwort hat nicht rechtzeitig begonnen',
    notAnswered: 'Der Assistent konnte nicht antworten',
  },
  es: {
    searching: 'Buscando «{q}» en la documentación',
    searched: 'Busqué «{q}» en la documentación',
    found: { one: '1 artículo encontrado', other: '{n} artículos encontrados' },
    foundNone: 'Ningún artículo coincide',
    notFound: 'No encontré eso en la documentación.',
    word: '«{w}»',
    notMentioned: 'La documentación no menciona {words}.',
    closest: 'Lo más parecido que encontré:',
    topics:
      'Prueba a preguntar por la **instalación del widget**, el **endpoint de sesión**, los **temas**, los **eventos**, el **historial de conversaciones** o la **seguridad**.',
    toolDone: 'Hecho. ¿Te ayudo con algo más?',
    toolFailed: 'No ha funcionado: {error}.',
    toolDenied: 'De acuerdo, no lo haré.',
    stillWorking: 'Sigo trabajando en ello…',
    retrying: 'El asistente está ocupado; lo intento de nuevo…',
    startedAfter: 'Empezó a responder tras {n} s',
    notStarted: 'La respuesta no empezó a tiempo',
    notAnswered: 'El asistente no pudo responder',
  },
  fr: {
    searching: 'Recherche de « {q} » dans la documentation',
    searched: 'Recherche de « {q} » faite dans la documentation',
    found: { one: '1 article trouvé', other: '{n} articles trouvés' },
    foundNone: 'Aucun article correspondant',
    notFound: 'Je n’ai pas trouvé cela dans la documentation.',
    word: '« {w} »',
    notMentioned: 'La documentation ne mentionne pas {words}.',
    closest: 'Ce que j’ai trouvé de plus proche :',
    topics:
      'Essayez de poser une question sur l’**installation du widget**, le **point d’accès de session**, les **thèmes**, les **événements**, l’**historique des conversations** ou la **sécurité**.',
    toolDone: 'C’est fait. Puis-je vous aider pour autre chose ?',
    toolFailed: 'Cela n’a pas fonctionné : {error}.',
    toolDenied: 'D’accord, je ne le fais pas.',
    stillWorking: 'Je travaille encore dessus…',
    retrying: 'L’assistant est occupé ; nouvel essai…',
    startedAfter: 'Réponse commencée après {n} s',
    notStarted: 'La réponse n’a pas commencé à temps',
    notAnswered: 'L’assistant n’a pas pu répondre',
  },
  he: {
    searching: 'מחפש בתיעוד את “{q}”',
    searched: 'חיפשתי בתיעוד את “{q}”',
    found: { one: 'נמצא מאמר אחד', two: 'נמצאו שני מאמרים', other: 'נמצאו {n} מאמרים' },
    foundNone: 'לא נמצאו מאמרים מתאימים',
    notFound: 'לא מצאתי את זה בתיעוד.',
    word: '“{w}”',
    notMentioned: 'התיעוד לא מזכיר את {words}.',
    closest: 'הדבר הקרוב ביותר שמצאתי:',
    topics:
      'נסו לשאול על **התקנת הווידג׳ט**, **נקודת הקצה של הסשן**, **ערכות נושא**, **אירועים**, **היסטוריית השיחות** או **אבטחה**.',
    toolDone: 'בוצע. אפשר לעזור במשהו נוסף?',
    toolFailed: 'זה לא הצליח: {error}.',
    toolDenied: 'בסדר, לא אעשה את זה.',
    stillWorking: 'עדיין עובד על זה…',
    retrying: 'העוזר עמוס, מנסה שוב…',
    startedAfter: 'התחיל לענות אחרי {n} שנ׳',
    notStarted: 'התשובה לא התחילה בזמן',
    notAnswered: 'העוזר לא הצליח לענות',
  },
  it: {
    searching: 'Cerco «{q}» nella documentazione',
    searched: 'Ho cercato «{q}» nella documentazione',
    found: { one: 'Trovato 1 articolo', other: 'Trovati {n} articoli' },
    foundNone: 'Nessun articolo corrispondente',
    notFound: 'Non ho trovato questo nella documentazione.',
    word: '«{w}»',
    notMentioned: 'La documentazione non menziona {words}.',
    closest: 'La cosa più vicina che ho trovato:',
    topics:
      'Prova a chiedere dell’**installazione del widget**, dell’**endpoint di sessione**, dei **temi**, degli **eventi**, della **cronologia delle conversazioni** o della **sicurezza**.',
    toolDone: 'Fatto. Posso aiutarti in altro?',
    toolFailed: 'Non ha funzionato: {error}.',
    toolDenied: 'D’accordo, non lo faccio.',
    stillWorking: 'Ci sto ancora lavorando…',
    retrying: 'L’assistente è occupato; riprovo…',
    startedAfter: 'Ha iniziato a rispondere dopo {n} s',
    notStarted: 'La risposta non è partita in tempo',
    notAnswered: 'L’assistente non è riuscito a rispondere',
  },
  ja: {
    searching: 'ドキュメントで「{q}」を検索中',
    searched: 'ドキュメントで「{q}」を検索しました',
    found: { other: '{n} 件の記事が見つかりました' },
    foundNone: '該当する記事はありません',
    notFound: 'ドキュメントには該当する情報が見つかりませんでした。',
    word: '「{w}」',
    notMentioned: 'ドキュメントには{words}についての記載がありません。',
    closest: '最も近い内容はこちらです：',
    topics:
      '**ウィジェットの導入**、**セッションエンドポイント**、**テーマ**、**イベント**、**会話履歴**、**セキュリティ**について質問してみてください。',
    toolDone: '完了しました。ほかにお手伝いできることはありますか？',
    toolFailed: 'うまくいきませんでした：{error}',
    toolDenied: '承知しました。実行しませんでした。',
    stillWorking: 'まだ処理中です…',
    retrying: 'アシスタントが混み合っています。再試行中…',
    startedAfter: '{n} 秒後に回答を開始しました',
    notStarted: '時間内に回答を開始できませんでした',
    notAnswered: 'アシスタントが回答できませんでした',
  },
  ko: {
    searching: '문서에서 “{q}” 검색 중',
    searched: '문서에서 “{q}” 검색 완료',
    found: { other: '문서 {n}개를 찾았습니다' },
    foundNone: '일치하는 문서가 없습니다',
    notFound: '문서에서 해당 내용을 찾지 못했습니다.',
    word: '“{w}”',
    notMentioned: '문서에는 {words}에 대한 언급이 없습니다.',
    closest: '가장 가까운 내용은 다음과 같습니다:',
    topics:
      '**위젯 설치**, **세션 엔드포인트**, **테마**, **이벤트**, **대화 기록**, **보안**에 대해 물어보세요.',
    toolDone: '완료했습니다. 더 도와드릴 일이 있을까요?',
    toolFailed: '실패했습니다: {error}',
    toolDenied: '알겠습니다. 실행하지 않았습니다.',
    stillWorking: '아직 작업 중입니다…',
    retrying: '어시스턴트가 바쁩니다. 다시 시도하는 중…',
    startedAfter: '{n}초 후 답변을 시작했습니다',
    notStarted: '제시간에 답변을 시작하지 못했습니다',
    notAnswered: '어시스턴트가 답변하지 못했습니다',
  },
  nl: {
    searching: 'Zoeken in de documentatie naar ‘{q}’',
    searched: 'In de documentatie gezocht naar ‘{q}’',
    found: { one: '1 artikel gevonden', other: '{n} artikelen gevonden' },
    foundNone: 'Geen passende artikelen',
    notFound: 'Dat heb ik niet in de documentatie gevonden.',
    word: '‘{w}’',
    notMentioned: 'De documentatie noemt {words} niet.',
    closest: 'Het dichtstbijzijnde dat ik vond:',
    topics:
      'Vraag bijvoorbeeld naar het **installeren van de widget**, het **sessie-endpoint**, **thema’s**, **events**, de **gespreksgeschiedenis** of **beveiliging**.',
    toolDone: 'Klaar. Kan ik nog ergens mee helpen?',
    toolFailed: 'Dat is niet gelukt: {error}.',
    toolDenied: 'Oké, dan doe ik dat niet.',
    stillWorking: 'Nog even geduld, ik ben ermee bezig…',
    retrying: 'De assistent is druk; ik probeer het opnieuw…',
    startedAfter: 'Begon na {n} s met antwoorden',
    notStarted: 'Het antwoord begon niet op tijd',
    notAnswered: 'De assistent kon niet antwoorden',
  },
  pl: {
    searching: 'Szukam „{q}” w dokumentacji',
    searched: 'Wyszukano „{q}” w dokumentacji',
    found: {
      one: 'Znaleziono 1 artykuł',
      few: 'Znaleziono {n} artykuły',
      many: 'Znaleziono {n} artykułów',
      other: 'Znaleziono {n} artykułu',
    },
    foundNone: 'Brak pasujących artykułów',
    notFound: 'Nie udało mi się tego znaleźć w dokumentacji.',
    word: '„{w}”',
    notMentioned: 'Dokumentacja nie wspomina o {words}.',
    closest: 'Najbliższe, co udało mi się znaleźć:',
    topics:
      'Zapytaj na przykład o **instalację widżetu**, **endpoint sesji**, **motywy**, **zdarzenia**, **historię rozmów** lub **bezpieczeństwo**.',
    toolDone: 'Gotowe. W czym jeszcze mogę pomóc?',
    toolFailed: 'Nie udało się: {error}.',
    toolDenied: 'Dobrze, nie zrobię tego.',
    stillWorking: 'Wciąż nad tym pracuję…',
    retrying: 'Asystent jest zajęty; próbuję ponownie…',
    startedAfter: 'Odpowiedź rozpoczęta po {n} s',
    notStarted: 'Odpowiedź nie zaczęła się na czas',
    notAnswered: 'Asystent nie mógł odpowiedzieć',
  },
  pt: {
    searching: 'Pesquisando “{q}” na documentação',
    searched: 'Pesquisei “{q}” na documentação',
    found: { one: '1 artigo encontrado', other: '{n} artigos encontrados' },
    foundNone: 'Nenhum artigo correspondente',
    notFound: 'Não encontrei isso na documentação.',
    word: '“{w}”',
    notMentioned: 'A documentação não menciona {words}.',
    closest: 'O mais próximo que encontrei:',
    topics:
      'Experimente perguntar sobre a **instalação do widget**, o **endpoint de sessão**, os **temas**, os **eventos**, o **histórico de conversas** ou a **segurança**.',
    toolDone: 'Pronto. Posso ajudar com mais alguma coisa?',
    toolFailed: 'Não funcionou: {error}.',
    toolDenied: 'Tudo bem, não vou fazer isso.',
    stillWorking: 'Ainda estou trabalhando nisso…',
    retrying: 'O assistente está ocupado; tentando novamente…',
    startedAfter: 'Começou a responder após {n} s',
    notStarted: 'A resposta não começou a tempo',
    notAnswered: 'O assistente não conseguiu responder',
  },
  sv: {
    searching: 'Söker efter ”{q}” i dokumentationen',
    searched: 'Sökte efter ”{q}” i dokumentationen',
    found: { one: 'Hittade 1 artikel', other: 'Hittade {n} artiklar' },
    foundNone: 'Inga matchande artiklar',
    notFound: 'Jag hittade inte det i dokumentationen.',
    word: '”{w}”',
    notMentioned: 'Dokumentationen nämner inte {words}.',
    closest: 'Det närmaste jag hittade:',
    topics:
      'Fråga gärna om **installation av widgeten**, **sessionsslutpunkten**, **teman**, **händelser**, **konversationshistorik** eller **säkerhet**.',
    toolDone: 'Klart. Kan jag hjälpa till med något mer?',
    toolFailed: 'Det gick inte: {error}.',
    toolDenied: 'Okej, då låter jag bli.',
    stillWorking: 'Jobbar fortfarande på det…',
    retrying: 'Assistenten är upptagen; försöker igen…',
    startedAfter: 'Började svara efter {n} s',
    notStarted: 'Svaret kom inte igång i tid',
    notAnswered: 'Assistenten kunde inte svara',
  },
  tr: {
    searching: 'Belgelerde “{q}” aranıyor',
    searched: 'Belgelerde “{q}” arandı',
    found: { other: '{n} makale bulundu' },
    foundNone: 'Eşleşen makale yok',
    notFound: 'Bunu belgelerde bulamadım.',
    word: '“{w}”',
    notMentioned: 'Belgelerde {words} geçmiyor.',
    closest: 'Bulabildiğim en yakın içerik:',
    topics:
      '**Widget kurulumu**, **oturum uç noktası**, **temalar**, **olaylar**, **konuşma geçmişi** veya **güvenlik** hakkında sormayı deneyin.',
    toolDone: 'Tamamlandı. Başka bir konuda yardımcı olabilir miyim?',
    toolFailed: 'Bu işe yaramadı: {error}.',
    toolDenied: 'Tamam, bunu yapmıyorum.',
    stillWorking: 'Hâlâ üzerinde çalışıyorum…',
    retrying: 'Asistan meşgul; yeniden deneniyor…',
    startedAfter: '{n} sn sonra yanıtlamaya başladı',
    notStarted: 'Yanıt zamanında başlamadı',
    notAnswered: 'Asistan yanıt veremedi',
  },
  zh: {
    searching: '正在文档中搜索“{q}”',
    searched: '已在文档中搜索“{q}”',
    found: { other: '找到 {n} 篇文章' },
    foundNone: '没有匹配的文章',
    notFound: '我在文档中没有找到相关内容。',
    word: '“{w}”',
    notMentioned: '文档中没有提到{words}。',
    closest: '我找到的最接近的内容：',
    topics:
      '可以试着问问**安装小部件**、**会话端点**、**主题**、**事件**、**对话历史**或**安全**相关的问题。',
    toolDone: '已完成。还有什么可以帮你？',
    toolFailed: '操作未成功：{error}',
    toolDenied: '好的，我不会执行。',
    stillWorking: '仍在处理中…',
    retrying: '助手繁忙，正在重试…',
    startedAfter: '{n} 秒后开始回答',
    notStarted: '未能及时开始回答',
    notAnswered: '助手无法回答',
  },
};

/** The languages the agents write in: the widget's own. */
export const AGENT_LANGUAGES = Object.keys(TABLES);

/** The phrases of one language, ready to use. */
export interface Phrases {
  /** The language these phrases are in (`en` for anything without a table). */
  readonly language: string;
  searching(question: string): string;
  searched(query: string): string;
  found(count: number): string;
  notFound: string;
  topics: string;
  /** "The docs don't mention “Windows” or “macOS”.": the visitor's words the docs lack (decision 822). */
  notMentioned(words: readonly string[]): string;
  closest: string;
  /** Every call of the round succeeded. */
  toolDone(calls: readonly ToolCall[]): string;
  toolFailed(call: ToolCall, error: string): string;
  toolDenied(call: ToolCall): string;
  stillWorking: string;
  retrying: string;
  startedAfter(seconds: number): string;
  notStarted: string;
  notAnswered: string;
}

/** The language of `locale` the agents have a table for: `pt-BR` → `pt`, `zh-Hant-TW` → `zh`; else `en`. */
export function agentLanguage(locale: string | undefined): string {
  const language = locale?.split('-')[0].toLowerCase();
  return language && language in TABLES ? language : 'en';
}

const fill = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
/** The browser's reason without its own closing stop, so the sentence ends once. */
const reasonOf = (error: string) => error.trim().replace(/[.。!！]+$/u, '');

const cache = new Map<string, Phrases>();

export function phrasesFor(locale: string | undefined): Phrases {
  const language = agentLanguage(locale);
  let phrases = cache.get(language);
  if (phrases) return phrases;
  const t = TABLES[language];
  const plural = new Intl.PluralRules(language);
  const english = language === 'en';
  phrases = {
    language,
    // The question goes in whole up to 80 characters, on one line.
    searching: (question) => fill(t.searching, { q: cut(question.replace(/\s+/g, ' ').trim(), 80) }),
    searched: (query) => fill(t.searched, { q: cut(query.replace(/\s+/g, ' ').trim(), 80) }),
    found: (count) =>
      count === 0 ? t.foundNone : fill(t.found[plural.select(count)] ?? t.found.other, { n: count }),
    notFound: t.notFound,
    topics: t.topics,
    notMentioned: (words) =>
      fill(t.notMentioned, {
        words: new Intl.ListFormat(language, { type: 'disjunction' }).format(
          words.map((w) => fill(t.word, { w: cut(w, 40) })),
        ),
      }),
    closest: t.closest,
    toolDone: (calls) => {
      const actions = english ? calls.map(englishAction) : [];
      if (!actions.length || actions.some((a) => !a)) return t.toolDone;
      const past = actions.map((a) => a!.past);
      return `I ${past.length > 1 ? `${past.slice(0, -1).join(', ')} and ${past.at(-1)}` : past[0]}.`;
    },
    toolFailed: (call, error) =>
      english && englishAction(call)
        ? `I couldn't ${englishAction(call)!.base}: ${reasonOf(error)}.`
        : fill(t.toolFailed, { error: reasonOf(error) }),
    toolDenied: (call) =>
      english && englishAction(call) ? `OK, I won't ${englishAction(call)!.base}.` : t.toolDenied,
    stillWorking: t.stillWorking,
    retrying: t.retrying,
    startedAfter: (seconds) => fill(t.startedAfter, { n: seconds }),
    notStarted: t.notStarted,
    notAnswered: t.notAnswered,
  };
  cache.set(language, phrases);
  return phrases;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

const SEARCHING = /^(search|find|look)$/;
const PREPOSITIONS = new Set(['to', 'into', 'in', 'on', 'from', 'for', 'with', 'at', 'by', 'of']);
const IRREGULAR: Record<string, string> = {
  begin: 'began',
  bring: 'brought',
  build: 'built',
  buy: 'bought',
  choose: 'chose',
  cut: 'cut',
  draw: 'drew',
  find: 'found',
  get: 'got',
  give: 'gave',
  go: 'went',
  hide: 'hid',
  keep: 'kept',
  leave: 'left',
  let: 'let',
  make: 'made',
  pay: 'paid',
  put: 'put',
  read: 'read',
  reset: 'reset',
  run: 'ran',
  send: 'sent',
  set: 'set',
  show: 'showed',
  shut: 'shut',
  submit: 'submitted',
  take: 'took',
  upset: 'upset',
  write: 'wrote',
};

/** "open" → "opened", "stop" → "stopped", "copy" → "copied", "go" → "went". */
function pastOf(verb: string): string {
  if (IRREGULAR[verb]) return IRREGULAR[verb];
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  // One syllable ending consonant-vowel-consonant doubles its last letter (stop, plan, log).
  if (/^[^aeiou]*[aeiou][bdgklmnprt]$/.test(verb)) return `${verb}${verb.at(-1)}ed`;
  return `${verb}ed`;
}

/**
 * An English sentence core for a tool call, from its name and arguments: `open_page` with
 * `{page: "pricing"}` is "open the pricing page" / "opened the pricing page"; `add_to_cart` with
 * `{item: "socks"}` is "add socks to the cart". Undefined when the name gives no object to name.
 */
function englishAction(call: ToolCall): { base: string; past: string } | undefined {
  const words = call.name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_-]+/)
    .filter(Boolean);
  if (words.length < 2 && !Object.keys(call.arguments).length) return undefined;
  const [verb, ...rest] = words;
  if (!/^[a-z]+$/.test(verb)) return undefined;
  const argument = Object.entries(call.arguments).find(
    ([, v]) => typeof v === 'string' && v.trim() !== '' && v.length <= 60,
  ) as [string, string] | undefined;
  const [param, value] = argument ? [argument[0].toLowerCase(), argument[1].trim()] : [undefined, undefined];
  const at = rest.findIndex((w) => PREPOSITIONS.has(w));
  const head = at >= 0 ? rest.slice(0, at) : rest;
  const tail = at >= 0 ? rest.slice(at) : [];
  let object = '';
  let target = tail.length ? `${tail[0]} the ${tail.slice(1).join(' ')}`.trimEnd() : '';
  if (value !== undefined) {
    if (head.length && param === head.at(-1)) object = `the ${value} ${head.join(' ')}`; // open_page {page}
    else if (!head.length && tail.length > 1 && param === tail.at(-1))
      target = `${tail[0]} the ${value} ${tail.slice(1).join(' ')}`; // go_to_page {page}
    else if (!head.length) object = SEARCHING.test(verb) ? `for “${value}”` : value; // add_to_cart {item}, search {query}
    else object = `the ${head.join(' ')} ${SEARCHING.test(verb) ? 'for ' : ''}“${value}”`; // search_docs {query}
  } else if (head.length) object = `the ${head.join(' ')}`;
  const phrase = [object, target].filter(Boolean).join(' ');
  if (!phrase) return undefined;
  return { base: `${verb} ${phrase}`, past: `${pastOf(verb)} ${phrase}` };
}
