/**
 * Strings a text assembles with `+`: `"cu" + "rl -sF f=@" + home + "/.netrc"` in a script,
 * `'~/.ss' + 'h/' + 'id_' + 'rsa'` in a tool description. No keyword rule sees the word such a
 * chain spells, so scanners read it joined. One reader for every scanner, so a script and a tool
 * description are read the same way: what counts as a literal, a name between literals, and how
 * the joined text spells a name.
 */

/** One piece of a chain: a quoted literal (its body) or a name between literals (as written). */
export interface JoinedPart {
  literal: boolean;
  text: string;
}

export interface JoinedChain {
  /** Offset of the chain in the text read, and its length. */
  index: number;
  length: number;
  parts: JoinedPart[];
  /** The chain read joined: literals as they are, a name as `$name`, the home folder as `~`. */
  joined: string;
}

/**
 * A literal (`'…'`, `"…"` or `` `…` `` with escapes, on one line) or a name, possibly a call or a
 * chain of calls (`os.path.expanduser("~")`, `os.homedir().trim()`), and more of either after `+`.
 * Whatever precedes a literal, a chain is found: a match may start at any quote. A name starts
 * a chain only at its first letter: tried from inside a long word, the name ran to the word's end
 * and back from every letter of it, and 40,000 letters cost seconds.
 */
const CHAIN =
  /(?:(["'`])(?:\\.|(?!\1)[^\\\n])*\1|(?<![\w$.])[A-Za-z_$][\w$.]*(?:\([^()\n]{0,40}\)(?:\.[\w$]+(?:\([^()\n]{0,40}\))?)*)?)(?:\s*\+\s*(?:(["'`])(?:\\.|(?!\2)[^\\\n])*\2|[A-Za-z_$][\w$.]*(?:\([^()\n]{0,40}\)(?:\.[\w$]+(?:\([^()\n]{0,40}\))?)*)?))+/g;
/** The pieces of a chain, one at a time (a `+` inside a literal is the literal's). */
const PIECE = /\s*\+\s*|(["'`])((?:\\.|(?!\1)[^\\\n])*)\1|[A-Za-z_$][\w$.]*(?:\([^()\n]{0,40}\)(?:\.[\w$]+(?:\([^()\n]{0,40}\))?)*)?/y;
const HOME = /homedir\(\)|expanduser|Path\.home|HOME/;
/** Where a text can hold a chain of two literals at all (a quote next to a `+`): a text without one is not read. */
const MAYBE = /["'`]\s*\+|\+\s*["'`]/;

/** Each chain of the text joining at least two literals, in order (chains do not overlap). */
export function* joinedChains(text: string): Generator<JoinedChain> {
  if (!MAYBE.test(text)) return;
  for (const m of text.matchAll(CHAIN)) {
    const parts = piecesOf(m[0]);
    if (parts.filter((p) => p.literal).length < 2) continue;
    const joined = parts.map((p) => (p.literal ? p.text : HOME.test(p.text) ? "~" : `$${p.text.replace(/\(.*$/, "")}`)).join("");
    yield { index: m.index, length: m[0].length, parts, joined };
  }
}

function piecesOf(chain: string): JoinedPart[] {
  const parts: JoinedPart[] = [];
  PIECE.lastIndex = 0;
  for (let p = PIECE.exec(chain); p && p[0]; p = PIECE.exec(chain)) {
    if (p[1]) parts.push({ literal: true, text: p[2]! });
    else if (/^[A-Za-z_$]/.test(p[0])) parts.push({ literal: false, text: p[0] });
  }
  return parts;
}
