"""The text of a request pasted with its markup: a JSON body, HTML tags, a form's fields, quote marks, emoji.

Users paste what their tools hold: an API call's body ('{"messages": [{"role": "user", "content": "..."}]}'),
a chat widget's HTML ("<p>...</p>"), a ticket ("Priority: Medium\nDescription: How many ...?"), a reply that
quotes the question ("> How many ...?"), a chat message with mentions and emoji ("@data-help ... :pray:"),
a dictation's spoken marks ("how many ... question mark").
The markup's words ("role", "content", "div", "priority") would count as terms and the emoji as tokens that
end no clause; what is left is read by query/request.py like any other request. A form's fields and a
document's other items are told by their lines (query/lines.py).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable

from ..index.text import STOPWORDS
from .lines import fields, items
from .wording import WH_WORDS

#: An HTML tag ("<p>", "</div>", '<div class="msg">', "<br/>"): a letter follows "<" at once, so a
#: comparison ("age < 30", "<30") is not one.
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
#: A tag that opens or closes the whole text: only then is it the page's markup rather than a value's own
#: ('the paper "... of the <I>TPEF/HPP1</I> Gene"').
_FRAMING_TAG = re.compile(rf"^\s*{_TAG.pattern}|{_TAG.pattern}\s*$")
#: The marks a reply quotes a message's lines with ("> How many ...?"), and those of a list's items ("- ",
#: "2. ", a task list's "- [ ] ") and of SQL comments ("-- ") at a line's start.
_QUOTED = re.compile(r"(?m)^[ \t]*(?:(?:>[ \t]?)+|(?:[-*\u2022]|--|\d{1,2}[.)])[ \t]+(?:\[[ xX]?\][ \t]+)?)")
#: A chat's mention that opens a line ("@data-help ..."; not one inside a quoted tweet) and its emoji codes
#: (":pray:", ":thinking_face:"; not a time, "12:30:45") and emoticons (":)"), a SQL block comment's marks
#: ("/* ... */") and a code block's fences ("```").
_CHAT_MARKS = re.compile(r"(?m)^[ \t]*@\w[\w.-]*|(?<![\w:]):[a-z][a-z0-9_+-]*:(?![\w:])|/\*|\*/|```+"
                         r"|(?<![\w:;])[:;]-?[()DPp](?![\w()])")
#: A chat log's stamp and speaker at a line's start or after a sentence ("[10:42 AM] Priya Nair: ", "[Mon
#: 09:14] jlee: ", "... have? [Participant 1, 00:41:20]: Let's"), or a speaker's name alone on the stamp's
#: line, the message below it ("[10:42 AM] Kowalski, Anna\n").
_STAMP = re.compile(r"(?m)(?:^|(?<=[.?!])[ \t])[ \t]*\[[^\]\n]*\d{1,2}:\d{2}[^\]\n]*\][ \t]*"
                    r"(?::[ \t]*|[^:\n]{1,40}:[ \t]*|[A-Z][\w'.-]*(?:,?[ \t]+[A-Z][\w'.-]*){0,3}[ \t]*$)?")
#: A chat's mention after a greeting ("hey @helpers quick one, ..."), which names whom the message is for.
_GREETED = re.compile(r"(?i)\b(hey|hi|hello|yo|cc|ping|thanks|thx)([ \t,]+)@\w[\w.-]*(?:[ \t,]+@\w[\w.-]*)*")
#: A forum's "TL;DR", written as the one word a message uses ("tldr").
_TLDR = re.compile(r"(?i)\btl;[ \t]?dr\b")
#: A chat turn's label at a line's start ("[user] ", "<|user|>", "<|assistant|>"), which names who speaks.
_TURN = re.compile(r"(?mi)^[ \t]*(?:\[(?:user|human|assistant|system|bot)\]|<\|(?:user|assistant|system)\|>)[ \t]*")
#: Commas typed over and over ("i swear,,, how many", "Hello,,,").
_COMMAS = re.compile(r",{2,}")
#: A notebook's prompts ("In [23]: ", "Out[23]: "), which number its cells, not the data.
_PROMPT = re.compile(r"(?m)^[ \t]*(?:In|Out)[ \t]*\[\d*\]:[ \t]*")
#: An e-mail's header lines ("From: Mark Ellison", "Sent: Monday"), which name its people, not the data.
_HEADER = re.compile(r"(?mi)^[ \t]*(?:>[ \t]?)*(?:from|to|cc|bcc|sent|date):[^\n]*$")
#: A header line they go with only where there are two or more (a single "From: 2014" line is no e-mail's).
_SUBJECT = re.compile(r"(?mi)^[ \t]*(?:>[ \t]?)*subject:")
#: Punctuation said aloud to a dictation ("how many ... question mark", "... in Germany. period send"): a
#: question mark anywhere; any other at the end, after a mark or before the word that sends the message (not
#: "films of the period").
_SPOKEN_QUESTION = re.compile(r"(?i)[ \t]*(?:[.!?][ \t]*)?\bquestion mark\b")
#: ... a comma between two words, the first no function word or the second a question word ("so yeah comma how
#: many", "okay so comma how many"; not "use a comma as", "separated by comma or tab"), and quotes ("open quote
#: ... close quote").
_SPOKEN_COMMA = re.compile(r"(?i)\b(\w+)[ \t]+comma[ \t]+(?=(\w+))")
_SPOKEN_QUOTES = re.compile(r"(?i)[ \t]*\b(?:open quote|close quote|end quote|unquote)\b[ \t,]*")
_MARK_SAID = r"(?:period|full stop|exclamation (?:mark|point)|comma|dot)"
_SENT = r"(?:send|end|over|new line|enter)"
_SPOKEN_END = re.compile(rf"(?i)(?:([.,!?])[ \t]*(?:{_MARK_SAID}(?:[ \t,.]+{_SENT})?|{_SENT})"
                         rf"|[ \t]+{_MARK_SAID}[ \t,.]+{_SENT})\b[ \t.!?]*$")
#: Joiners and variation selectors that hold emoji together.
_JOINERS = frozenset("\u200d\ufe0e\ufe0f")
#: An arrow typed as marks ("this one -> How many"), or a prompt's mark before a capital ("transcript 14:02 >
#: How many"; not "age > 30"), read as the dash it stands for.
_ARROW = re.compile(r"(?<=\s)(?:[-=]+>|>>?(?=\s+[A-Z]))(?=\s)")
#: Markdown's emphasis by underscores ("_Context: weekly review_"; not a name's "customer_id") or in bold
#: ("**How many ...?**").
_EMPHASIS = re.compile(r"(?<!\w)_([^_\n]+)_(?!\w)|\*\*([^*\n]+)\*\*")
#: A run of emoji (marked "\0") after a word and before a space and a letter.
_ENDING_PICTOGRAPH = re.compile(r"(?<=\w)[ \t]*\0[\0 \t]*[ \t]([^\W\d_])")


def unwrap(text: str, asks: Callable[[str], bool]) -> str:
    """The text inside its markup, or the text itself where it has none; `asks` tells a form's field that
    asks from one that does not."""
    body = fields(_json_text(text), asks)
    if _FRAMING_TAG.search(body):
        body = _TAG.sub(" ", body)
    body = _STAMP.sub(lambda m: " " if m.start() > 0 and body[m.start() - 1] != "\n" else "", body)
    body = _TURN.sub("", _PROMPT.sub("", body))
    if len(_HEADER.findall(body)) + len(_SUBJECT.findall(body)) >= 2:
        body = _HEADER.sub("", body)
    body = _QUOTED.sub("", items(body, asks))
    body = _COMMAS.sub(",", _TLDR.sub("tldr", _GREETED.sub(r"\1\2", body)))
    body = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), _ARROW.sub("\u2192", _CHAT_MARKS.sub(" ", body)))
    return _pictographs(_spoken(body))


def _spoken(body: str) -> str:
    """The text with its spoken punctuation written as marks (_SPOKEN_QUESTION, _SPOKEN_COMMA, _SPOKEN_QUOTES,
    _SPOKEN_END)."""
    said = _SPOKEN_QUESTION.sub("?", body)
    said = _SPOKEN_COMMA.sub(lambda m: m.group(0) if m.group(1).lower() in STOPWORDS and m.group(2).lower() not in
                             WH_WORDS else m.group(1) + ", ", said)
    said = _SPOKEN_QUOTES.sub(" ", said)
    end = _SPOKEN_END.search(said)
    return said if end is None or not said[:end.start()].strip() else said[:end.start()] + (end.group(1) or ".")


def _pictographs(body: str) -> str:
    """The text without its emoji; one between a word and a capital ends a sentence as a full stop would
    ("Morning all \u2615 How many ...")."""
    marked = "".join("\0" if _symbol(c) else c for c in body)
    ended = _ENDING_PICTOGRAPH.sub(lambda m: " . " + m.group(1) if m.group(1).isupper() else m.group(0), marked)
    return ended.replace("\0", " ")


def _json_text(text: str) -> str:
    """The longest string of a JSON body with words in it: the question a tool's request carries, whatever
    its keys are named ("question", "content", "prompt")."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return text
    try:
        body = json.loads(stripped)
    except ValueError:
        return text
    strings = sorted(_strings(body), key=lambda s: (-len(s), s))
    return next((s for s in strings if sum(w.isalpha() for w in s.split()) > 1), text)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _symbol(char: str) -> bool:
    """An emoji or other pictograph ("🙏", "📊"), which names nothing; math and currency signs stay."""
    return unicodedata.category(char) == "So" or char in _JOINERS
