// Entry for scripts/size.mjs: what the widget takes from the markdown engine, measured alone.
export { Lexer } from 'marked';
