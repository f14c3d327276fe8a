// wink-porter2-stemmer ships no types; it exports one function (CommonJS).
declare module 'wink-porter2-stemmer' {
  const stem: (word: string) => string;
  export default stem;
}
