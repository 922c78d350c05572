"""Text analysis and the search index shared by `hsearch`, `hindex` and the heuristic manager.

Runs inside every sandbox, so it is stdlib-only and avoids even ``re`` and
``json`` on the query path: a search is one short-lived process, and its
start-up time is most of the recall latency. The host imports this same file,
so the index the manager writes is read with exactly the analysis that built it.

Index layout (``.horma/index/``), one shard per source file so that ingesting a
session writes one small file instead of rewriting everything:
``raw__<segment>.idx`` and ``note__<note path>.idx``, text lines
``path<TAB>lineno<TAB>unit_id<TAB>actor<TAB>time<TAB>cost<TAB>term term ...`` (a
term repeated as often as it occurs; ``cost`` = tokens of the line as a context
shows it) under a header line ``#horma-index 1<TAB>source-size``.
"""

from __future__ import annotations

import math
import os
import sys

# A search is a short-lived process that does not import ``re`` (its start-up
# dominates latency); a host process that already has it gets the same
# splitting from compiled patterns ([^\W_] is exactly str.isalnum).
_re = sys.modules.get("re")
_WORD = _re.compile(r"[^\W_]+") if _re else None
_TOKEN = _re.compile(r"\w+|[^\w\s]") if _re else None

INDEX_DIR = ".horma/index"
FORMAT = "#horma-index 1"

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren as at be because been before being
    below between both but by can cannot could couldn did didn do does doesn doing don down during each
    few for from further had hadn has hasn have haven having he her here hers herself him himself his
    how i if in into is isn it its itself just ll let me more most mustn my myself no nor not now of off
    on once only or other ought our ours ourselves out over own re s same shan she should shouldn so some
    such t than that the their theirs them themselves then there these they this those through to too
    under until up ve very was wasn we were weren what when where which while who whom why will with
    won would wouldn you your yours yourself yourselves d m o y ma hey hi oh wow yeah yes ok okay really
    thanks thank hello lol haha also much many get got""".split()
)

_VOWELS = frozenset("aeiou")


def _cons(w: str, i: int) -> bool:
    c = w[i]
    if c in _VOWELS:
        return False
    if c == "y":
        return i == 0 or not _cons(w, i - 1)
    return True


def _m(stem: str) -> int:
    """Porter's measure: the number of vowel-consonant sequences."""
    n, i, length = 0, 0, len(stem)
    while i < length and _cons(stem, i):
        i += 1
    while i < length:
        while i < length and not _cons(stem, i):
            i += 1
        if i >= length:
            break
        n += 1
        while i < length and _cons(stem, i):
            i += 1
    return n


def _has_vowel(stem: str) -> bool:
    return any(not _cons(stem, i) for i in range(len(stem)))


def _double_cons(w: str) -> bool:
    return len(w) >= 2 and w[-1] == w[-2] and _cons(w, len(w) - 1)


def _cvc(w: str) -> bool:
    return (len(w) >= 3 and _cons(w, len(w) - 3) and not _cons(w, len(w) - 2)
            and _cons(w, len(w) - 1) and w[-1] not in "wxy")


def _replace(w: str, rules: tuple[tuple[str, str], ...], min_m: int) -> str:
    for suffix, repl in rules:
        if w.endswith(suffix):
            stem = w[: len(w) - len(suffix)]
            return stem + repl if _m(stem) > min_m else w
    return w


_STEP2 = (("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
          ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
          ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
          ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
          ("logi", "log"))
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
          ("ful", ""), ("ness", ""))
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
          "ism", "ate", "iti", "ous", "ive", "ize")


def stem(w: str) -> str:
    """The Porter stemmer (1980), so 'painted', 'painting' and 'paints' meet at 'paint'."""
    if len(w) <= 2 or not w.isalpha():
        return w
    # step 1a
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # step 1b
    extra = False
    if w.endswith("eed"):
        if _m(w[:-3]) > 0:
            w = w[:-1]
    elif w.endswith("ed") and _has_vowel(w[:-2]):
        w, extra = w[:-2], True
    elif w.endswith("ing") and _has_vowel(w[:-3]):
        w, extra = w[:-3], True
    if extra:
        if w.endswith(("at", "bl", "iz")):
            w += "e"
        elif _double_cons(w) and w[-1] not in "lsz":
            w = w[:-1]
        elif _m(w) == 1 and _cvc(w):
            w += "e"
    # step 1c
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace(w, _STEP2, 0)
    w = _replace(w, _STEP3, 0)
    # step 4
    for suffix in _STEP4:
        if w.endswith(suffix):
            stem_ = w[: len(w) - len(suffix)]
            if _m(stem_) > 1 and (suffix != "ion" or stem_.endswith(("s", "t"))):
                w = stem_
            break
    # step 5
    if w.endswith("e"):
        s = w[:-1]
        if _m(s) > 1 or (_m(s) == 1 and not _cvc(s)):
            w = s
    if w.endswith("ll") and _m(w) > 1:
        w = w[:-1]
    return w


_STEM_CACHE: dict[str, str] = {}


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric runs (an apostrophe ends a word: "Mel's" -> "mel", "s")."""
    if _WORD is not None:
        return _WORD.findall(text.lower())
    out: list[str] = []
    cur: list[str] = []
    for ch in text.lower():
        if ch.isalnum():
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def stem_cached(w: str) -> str:
    """``stem`` memoised: conversations repeat the same words a lot."""
    s = _STEM_CACHE.get(w)
    if s is None:
        s = _STEM_CACHE[w] = stem(w)
    return s


def terms(text: str) -> list[str]:
    """Index terms: words without stop words, stemmed."""
    return [stem_cached(w) for w in words(text) if w not in STOPWORDS]


def count_tokens(text: str) -> int:
    """horma.tokens.count_tokens without ``re``: a \\w+ run or one punctuation character."""
    if _TOKEN is not None:
        return len(_TOKEN.findall(text))
    n = 0
    in_word = False
    for ch in text:
        if ch.isalnum() or ch == "_":
            if not in_word:
                n += 1
                in_word = True
        else:
            in_word = False
            if not ch.isspace():
                n += 1
    return n


_CHUNKS: dict[str, tuple[int, str]] = {}
CHUNK_CACHE = 200_000  # entries; a long-running manager clears it when full


def analyse(text: str) -> tuple[int, str]:
    """``(count_tokens(text), " ".join(terms(text)))``, memoised per whitespace-separated chunk.

    Neither a word nor a token spans whitespace, so a line's analysis is its
    chunks' analyses put together; the manager re-indexes note lines made of the
    same few thousand chunks, and a dict lookup per chunk is much cheaper than
    splitting and stemming the line again.
    """
    n = 0
    parts = []
    for chunk in text.split():
        hit = _CHUNKS.get(chunk)
        if hit is None:
            if len(_CHUNKS) >= CHUNK_CACHE:
                _CHUNKS.clear()
            hit = _CHUNKS[chunk] = (count_tokens(chunk), " ".join(terms(chunk)))
        n += hit[0]
        if hit[1]:
            parts.append(hit[1])
    return n, " ".join(parts)


def context_cost(uid: str, actor: str, text: str) -> int:
    """Tokens a raw line costs in a context, which shows it as ``ID actor: text``."""
    return analyse(f"{uid} {actor}: {text}")[0]


HEADER_COST = 5  # the "[8 May 2023]" header a context puts above each segment's lines


def parse_unit(line: str) -> tuple[str, str, str, str] | None:
    """``ID | time | actor: text`` -> (id, time, actor, text); None for other lines."""
    parts = line.rstrip("\n").split(" | ", 2)
    if len(parts) != 3:
        return None
    actor, colon, text = parts[2].partition(": ")
    if not colon:
        actor, text = "", parts[2]
    return parts[0].strip(), parts[1].strip(), actor, text


def _clean(field: str) -> str:
    return field.replace("\t", " ").replace("\n", " ")


def shard_name(path: str) -> str:
    """``raw/2023-05-08T13-56__x/units.log`` -> ``raw__2023-05-08T13-56__x.idx``;
    ``notes/people/ada.md`` -> ``note__people__ada.md.idx``."""
    if path.startswith("raw/"):
        return "raw__" + path[4:].rsplit("/", 1)[0].replace("/", "__") + ".idx"
    return "note__" + path.split("/", 1)[-1].replace("/", "__") + ".idx"


def raw_shard(path: str, text: str) -> str:
    """The index shard of one raw units file."""
    rows = [f"{FORMAT}\t{len(text.encode('utf-8'))}"]
    for n, line in enumerate(text.splitlines(), 1):
        unit = parse_unit(line)
        if unit is None:
            continue
        uid, time, actor, body = unit
        tokens, body_terms = analyse(body)
        cost = analyse(f"{uid} {actor}:")[0] + tokens  # = context_cost(): no token spans the space
        rows.append("\t".join((path, str(n), _clean(uid), _clean(time), _clean(actor), str(cost), body_terms)))
    return "\n".join(rows) + "\n"


def note_rows(path: str, text: str, memo: dict | None = None) -> list[str]:
    """Index rows of one note: a document per non-empty body line (front matter skipped)."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0] == "---":
        for i in range(1, len(lines)):
            if lines[i] == "---":
                start = i + 1
                break
    rows = []
    for n in range(start, len(lines)):
        line = lines[n]
        cached = memo.get(line) if memo is not None else None
        if cached is None:
            tokens, t = analyse(line)
            cached = f"{tokens}\t{t}" if t else ""
            if memo is not None:
                memo[line] = cached
        if cached:
            rows.append(f"{path}\t{n + 1}\t\t\t\t{cached}")
    return rows


def note_shard(path: str, text: str, memo: dict | None = None) -> str:
    return "\n".join([f"{FORMAT}\t0", *note_rows(path, text, memo)]) + "\n"


class Doc:
    __slots__ = ("path", "lineno", "uid", "time", "actor", "cost", "tf", "length", "prev", "next")

    def __init__(self, path: str, lineno: int, uid: str, time: str, actor: str, cost: int, toks: list[str]):
        self.path, self.lineno, self.uid, self.time, self.actor = path, lineno, uid, time, actor
        self.cost = cost
        tf: dict[str, int] = {}
        for t in toks:
            tf[t] = tf.get(t, 0) + 1
        self.tf = tf
        self.length = len(toks)
        self.prev: Doc | None = None
        self.next: Doc | None = None


def read_shard(text: str) -> list[Doc]:
    docs: list[Doc] = []
    for row in text.splitlines()[1:]:
        f = row.split("\t")
        if len(f) != 7:
            continue
        d = Doc(f[0], int(f[1]), f[2], f[3], f[4], int(f[5]), f[6].split())
        if docs and docs[-1].path == d.path and d.uid:
            d.prev, docs[-1].next = docs[-1], d
        docs.append(d)
    return docs


def load_index(root: str, notes: bool = True) -> tuple[list[Doc], list[Doc]]:
    """(raw turn docs in archive order, note line docs) from ``root/.horma/index``."""
    folder = os.path.join(root, INDEX_DIR)
    raw: list[Doc] = []
    note_docs: list[Doc] = []
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return raw, note_docs
    for name in names:
        is_note = name.startswith("note__")
        if not name.endswith(".idx") or (is_note and not notes):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            docs = read_shard(fh.read())
        (note_docs if is_note else raw).extend(docs)
    return raw, note_docs


class BM25:
    """Okapi BM25 over a set of documents."""

    def __init__(self, docs: list[Doc], k1: float = 1.2, b: float = 0.75):
        self.docs, self.k1, self.b = docs, k1, b
        self.n = len(docs)
        self.avg = (sum(d.length for d in docs) / self.n) if self.n else 1.0
        df: dict[str, int] = {}
        for d in docs:
            for t in d.tf:
                df[t] = df.get(t, 0) + 1
        self.df = df

    def idf(self, term: str) -> float:
        n = self.df.get(term, 0)
        return math.log(1.0 + (self.n - n + 0.5) / (n + 0.5))

    def score(self, doc: Doc, qterms: dict[str, float]) -> float:
        s = 0.0
        norm = self.k1 * (1 - self.b + self.b * doc.length / self.avg)
        for t, w in qterms.items():
            f = doc.tf.get(t)
            if f:
                s += w * self.idf(t) * f * (self.k1 + 1) / (f + norm)
        return s


# Ranking weights. A reply usually answers the turn before it, so a turn also
# scores from its neighbours; sessions about the query lift their turns; a
# question naming a speaker leans toward that speaker's own turns.
PREV_WEIGHT = 0.7
NEXT_WEIGHT = 0.3
SESSION_WEIGHT = 1.5
SPEAKER_BOOST = 1.2


def query_terms(query: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for t in terms(query):
        out[t] = out.get(t, 0.0) + 1.0
    return out


def rank_raw(docs: list[Doc], query: str) -> list[tuple[float, Doc]]:
    """Raw turns by relevance to ``query``, best first (only turns with a positive score)."""
    if not docs:
        return []
    qt = query_terms(query)
    by_name: dict[str, str] = {}
    for d in docs:
        if d.actor and d.actor not in by_name.values():
            for w in words(d.actor):
                by_name[stem(w)] = d.actor
    named = {by_name[t] for t in qt if t in by_name}
    rest = {t: w for t, w in qt.items() if t not in by_name}
    if rest:
        qt = rest
    if not qt:
        return []
    bm = BM25(docs)
    base = {id(d): bm.score(d, qt) for d in docs}
    session: dict[str, float] = {}
    for d in docs:
        session[d.path] = session.get(d.path, 0.0) + base[id(d)]
    top = max(session.values()) or 1.0
    scored = []
    for d in docs:
        s = base[id(d)]
        if d.prev is not None:
            s += PREV_WEIGHT * base[id(d.prev)]
        if d.next is not None:
            s += NEXT_WEIGHT * base[id(d.next)]
        if s <= 0:
            continue
        if d.actor in named:
            s *= SPEAKER_BOOST
        s += SESSION_WEIGHT * session[d.path] / top
        scored.append((s, d))
    scored.sort(key=lambda x: (-x[0], x[1].path, x[1].lineno))
    return scored


def rank_notes(docs: list[Doc], query: str) -> list[tuple[float, Doc]]:
    qt = query_terms(query)
    if not docs or not qt:
        return []
    bm = BM25(docs)
    scored = [(bm.score(d, qt), d) for d in docs]
    scored = [x for x in scored if x[0] > 0]
    scored.sort(key=lambda x: (-x[0], x[1].path, x[1].lineno))
    return scored
