/**
 * Text whose `backticked` parts are names (tensor names, keys, files), as finding messages and evidence write them:
 * those parts render as code instead of showing raw backticks. React escapes every part; nothing is parsed as HTML.
 */
export function splitCode(text: string): Array<{ code: boolean; text: string }> {
  const parts: Array<{ code: boolean; text: string }> = [];
  const pattern = /`([^`\n]+)`/g;
  let last = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match.index > last) {
      parts.push({ code: false, text: text.slice(last, match.index) });
    }
    parts.push({ code: true, text: match[1] });
    last = match.index + match[0].length;
  }
  if (last < text.length) {
    parts.push({ code: false, text: text.slice(last) });
  }
  return parts;
}

export function CodeText({ text }: { text: string }) {
  return (
    <>
      {splitCode(text).map((part, index) =>
        part.code ? <code key={index}>{part.text}</code> : <span key={index}>{part.text}</span>,
      )}
    </>
  );
}
