"""Words, the token count and the raw line format: the text rules host and sandbox share.

Runs inside every sandbox, so it is stdlib-only and avoids even ``re`` on the
query path: a search is one short-lived process, and its start-up time is a
good part of the recall latency. Stemming and BM25 are SQLite FTS5's
(``horma.core.index``); what stays here is how a query is split into words,
the stop words dropped from it, the project's one token count (a ``\\w+`` run
or one punctuation character: cheap, deterministic and provider-independent,
so a budget means the same for every method and backend), and the raw line
``ID | time | actor: text``.
"""

from __future__ import annotations

import sys

# A search is a short-lived process that does not import ``re`` (its start-up
# dominates latency); a host process that already has it gets the same
# splitting from compiled patterns ([^\W_] is exactly str.isalnum).
_re = sys.modules.get("re")
_WORD = _re.compile(r"[^\W_]+") if _re else None
TOKEN_PATTERN = r"\w+|[^\w\s]"
_TOKEN = _re.compile(TOKEN_PATTERN) if _re else None

STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "aren", "as", "at",
     "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "cannot", "could",
     "couldn", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during", "each", "few", "for", "from",
     "further", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him",
     "himself", "his", "how", "i", "if", "in", "into", "is", "isn", "it", "its", "itself", "just", "ll", "let", "me",
     "more", "most", "mustn", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
     "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "re", "s", "same", "shan", "she", "should",
     "shouldn", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "themselves", "then",
     "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "ve", "very", "was",
     "wasn", "we", "were", "weren", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
     "won", "would", "wouldn", "you", "your", "yours", "yourself", "yourselves", "d", "m", "o", "y", "ma", "hey", "hi",
     "oh", "wow", "yeah", "yes", "ok", "okay", "really", "thanks", "thank", "hello", "lol", "haha", "also", "much",
     "many", "get", "got"]
)

# Grammatical person: a turn in the first person tells about its speaker ("I moved to Denver"), one in
# the second person tells the listener something ("you could try..."). A question asked in the first
# person ("where do I live?") is answered by the asker's own first-person turns, one asking "you"
# ("what did you recommend?") by the other side's; a question in the third person names whom it asks
# about and gets no lean.
# In a chat with an assistant, "you" is the assistant: a question asking "you" is answered by the
# assistant's own turns, whatever pronouns they use ("I'd combine three things: Deutsche Welle's...").
# Chat APIs and MCP clients label the sides with these roles (any case).
USER_ROLES = frozenset(["user", "human"])
ASSISTANT_ROLES = frozenset(["assistant", "ai", "bot", "chatbot"])
FIRST_PERSON = frozenset(["i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"])
SECOND_PERSON = frozenset(["you", "your", "yours", "yourself", "yourselves"])
NO_PERSON, FIRST, SECOND = 0, 1, 2


def asks(body: str) -> int:
    """1 when a turn ends in a question: what answers it is the turn after it, not its own words."""
    return int(body.rstrip().endswith("?"))


def person(tokens: list[str]) -> int:
    """FIRST or SECOND when one person's words outnumber the other's, else NO_PERSON."""
    first = sum(t in FIRST_PERSON for t in tokens)
    second = sum(t in SECOND_PERSON for t in tokens)
    return FIRST if first > second else SECOND if second > first else NO_PERSON


def asked_person(tokens: list[str]) -> int:
    """The person a question is asked in: FIRST or SECOND when it uses only that one, else NO_PERSON."""
    have = set(tokens)
    first, second = bool(have & FIRST_PERSON), bool(have & SECOND_PERSON)
    return FIRST if first and not second else SECOND if second and not first else NO_PERSON


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


def count_tokens(text: str) -> int:
    """Tokens in ``text``: a \\w+ run or one punctuation character (the same with or without ``re``)."""
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


SEP = " | "


def format_unit(uid: str, time: str, actor: str, text: str) -> str:
    """One unit as its raw line; whitespace runs fold to one space (a unit is one line), no actor is ``-``."""
    return f"{uid}{SEP}{time}{SEP}{' '.join(actor.split()) or '-'}: {' '.join(text.split())}"


def parse_unit(line: str) -> tuple[str, str, str, str] | None:
    """``ID | time | actor: text`` -> (id, time, actor, text); None for other lines."""
    parts = line.rstrip("\n").split(SEP, 2)
    if len(parts) != 3:
        return None
    actor, colon, text = parts[2].partition(": ")
    if not colon:
        actor, text = "", parts[2]
    return parts[0].strip(), parts[1].strip(), actor, text
