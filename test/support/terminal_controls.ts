/** The characters in `text` a terminal would act on: C0 controls but newline and tab, DEL and C1 controls. */
export function terminalControlsIn(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (code < 0x20 && char !== '\n' && char !== '\t') || (code >= 0x7f && code <= 0x9f);
  });
}
