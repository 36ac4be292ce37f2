/**
 * What the agents say about a question's files, in the widget's 15 languages: the demo agent's
 * honest receipt (each file's name, kind and size, and that it cannot look inside), and the
 * model agent's notice when the model is not set up to see images.
 */
import { formatBytes } from '../../contract/byte-size.js';
import type { FileKind } from '../../contract/types.js';
import { agentLanguage } from './phrases.js';

interface Table {
  /** The receipt's first line. */
  received: string;
  kinds: Record<FileKind, string>;
  /** The demo agent reads no file. */
  demoCannotRead: string;
  /** `{names}`: the images the model did not get. */
  cannotSee: string;
  /** Between a file's kind and its size, where the language's comma is not ", " (Arabic's is "،"). */
  comma?: string;
}

const TABLES: Record<string, Table> = {
  en: {
    received: 'You attached:',
    kinds: { image: 'image', text: 'text', pdf: 'PDF' },
    demoCannotRead: 'I am the demo assistant: I cannot look inside files, so I answer from the docs alone.',
    cannotSee: 'I cannot see images here, so I did not look at {names}.',
  },
  ar: {
    received: 'أرفقت:',
    kinds: { image: 'صورة', text: 'نص', pdf: 'PDF' },
    demoCannotRead: 'أنا المساعد التجريبي: لا أستطيع الاطلاع على محتوى الملفات، لذا أجيب من الوثائق فقط.',
    cannotSee: 'لا أستطيع رؤية الصور هنا، لذا لم أطّلع على {names}.',
    comma: '، ',
  },
  de: {
    received: 'Du hast angehängt:',
    kinds: { image: 'Bild', text: 'Text', pdf: 'PDF' },
    demoCannotRead:
      'Ich bin der Demo-Assistent: In Dateien kann ich nicht hineinsehen, ich antworte nur aus der Dokumentation.',
    cannotSee: 'Bilder kann ich hier nicht sehen, {names} habe ich mir also nicht angesehen.',
  },
  es: {
    received: 'Adjuntaste:',
    kinds: { image: 'imagen', text: 'texto', pdf: 'PDF' },
    demoCannotRead:
      'Soy el asistente de demostración: no puedo ver el contenido de los archivos, así que respondo solo con la documentación.',
    cannotSee: 'Aquí no puedo ver imágenes, así que no he mirado {names}.',
  },
  fr: {
    received: 'Vous avez joint :',
    kinds: { image: 'image', text: 'texte', pdf: 'PDF' },
    demoCannotRead:
      'Je suis l’assistant de démonstration : je ne peux pas lire les fichiers, je réponds donc à partir de la documentation seule.',
    cannotSee: 'Je ne peux pas voir les images ici, je n’ai donc pas regardé {names}.',
  },
  he: {
    received: 'צירפת:',
    kinds: { image: 'תמונה', text: 'טקסט', pdf: 'PDF' },
    demoCannotRead: 'אני עוזר ההדגמה: איני יכול לעיין בתוכן קבצים, ולכן אני עונה מהתיעוד בלבד.',
    cannotSee: 'איני יכול לראות תמונות כאן, ולכן לא הסתכלתי על {names}.',
  },
  it: {
    received: 'Hai allegato:',
    kinds: { image: 'immagine', text: 'testo', pdf: 'PDF' },
    demoCannotRead:
      'Sono l’assistente dimostrativo: non posso leggere i file, quindi rispondo solo dalla documentazione.',
    cannotSee: 'Qui non posso vedere le immagini, quindi non ho guardato {names}.',
  },
  ja: {
    received: '添付されたファイル:',
    kinds: { image: '画像', text: 'テキスト', pdf: 'PDF' },
    demoCannotRead:
      '私はデモ用アシスタントのため、ファイルの中身は読めません。ドキュメントだけをもとに回答します。',
    cannotSee: 'ここでは画像を見られないため、{names} は確認していません。',
  },
  ko: {
    received: '첨부한 파일:',
    kinds: { image: '이미지', text: '텍스트', pdf: 'PDF' },
    demoCannotRead: '저는 데모 도우미라서 파일 내용을 볼 수 없습니다. 문서만 보고 답합니다.',
    cannotSee: '여기서는 이미지를 볼 수 없어 {names}을(를) 확인하지 못했습니다.',
  },
  nl: {
    received: 'Je hebt bijgevoegd:',
    kinds: { image: 'afbeelding', text: 'tekst', pdf: 'pdf' },
    demoCannotRead:
      'Ik ben de demo-assistent: ik kan niet in bestanden kijken, dus ik antwoord alleen vanuit de documentatie.',
    cannotSee: 'Ik kan hier geen afbeeldingen zien, dus ik heb {names} niet bekeken.',
  },
  pl: {
    received: 'Załączono:',
    kinds: { image: 'obraz', text: 'tekst', pdf: 'PDF' },
    demoCannotRead:
      'Jestem asystentem demonstracyjnym: nie zaglądam do plików, więc odpowiadam wyłącznie na podstawie dokumentacji.',
    cannotSee: 'Nie widzę tu obrazów, więc nie obejrzałem {names}.',
  },
  pt: {
    received: 'Você anexou:',
    kinds: { image: 'imagem', text: 'texto', pdf: 'PDF' },
    demoCannotRead:
      'Sou o assistente de demonstração: não consigo ver o conteúdo de arquivos, então respondo só com a documentação.',
    cannotSee: 'Não consigo ver imagens aqui, então não olhei {names}.',
  },
  sv: {
    received: 'Du bifogade:',
    kinds: { image: 'bild', text: 'text', pdf: 'pdf' },
    demoCannotRead:
      'Jag är demoassistenten: jag kan inte läsa filer, så jag svarar bara utifrån dokumentationen.',
    cannotSee: 'Jag kan inte se bilder här, så jag har inte tittat på {names}.',
  },
  tr: {
    received: 'Eklediğiniz dosyalar:',
    kinds: { image: 'görsel', text: 'metin', pdf: 'PDF' },
    demoCannotRead:
      'Ben tanıtım asistanıyım: dosyaların içine bakamam, bu yüzden yalnızca belgelere dayanarak yanıtlarım.',
    cannotSee: 'Burada görselleri göremiyorum, bu yüzden {names} dosyasına bakmadım.',
  },
  zh: {
    received: '你附加了：',
    kinds: { image: '图片', text: '文本', pdf: 'PDF' },
    demoCannotRead: '我是演示助手：无法查看文件内容，因此只根据文档回答。',
    cannotSee: '这里无法查看图片，所以我没有看 {names}。',
  },
};

export interface FilePhrases {
  /** A Markdown list of the files: each name (as code, so no mark in it acts), kind and size. */
  receipt(files: readonly { name: string; kind: FileKind; size: number }[]): string;
  demoCannotRead: string;
  cannotSee(names: readonly string[]): string;
}

/** A name as inline code, whatever backticks it holds. */
const code = (name: string) => {
  const longest = Math.max(0, ...(name.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${longest ? ` ${name} ` : name}${fence}`;
};

export function filePhrasesFor(locale: string | undefined): FilePhrases {
  const language = agentLanguage(locale);
  const t = TABLES[language] ?? TABLES.en;
  const list = new Intl.ListFormat(language, { type: 'conjunction' });
  return {
    receipt: (files) =>
      [
        t.received,
        ...files.map(
          (f) => `- ${code(f.name)} (${t.kinds[f.kind]}${t.comma ?? ', '}${formatBytes(f.size, language)})`,
        ),
      ].join('\n'),
    demoCannotRead: t.demoCannotRead,
    cannotSee: (names) => t.cannotSee.replace('{names}', list.format(names.map(code))),
  };
}
