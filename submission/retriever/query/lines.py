"""The lines of a pasted document that hold its question: not a ticket's fields, an agenda's other items, code.

Users paste whole documents: a ticket ("TICKET #48213 | Priority: Medium\nDescription: How many ...?\nStatus:
Open"), a list of action items with the question one of them, a notebook cell ("# how many ...?\ndf =
run_query(q)"), an e-mail with its signature ("--\nIngrid Johansson | Business Analyst"). Each of those lines
is an item of its own: one that asks nothing names none of the question's data, however many capitals it has
("Status: Open", "- book room for offsite"), where the sentence pass (query/sentences.py) would keep it for
them. A line that goes on with the one before it (no mark ends that one and it starts in lower case: "... how
many of them can be\nimplemented ...") is part of that one; an item that goes on with the question ("- their
ages", "- only the active ones") stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..index.text import STOPWORDS
from .wording import CONTINUING, GOING_ON, MESSAGING, PERSONS, QUOTES, REFERRING, tokens

#: A form's or a ticket's field on a line of its own ("Priority: Medium", "  question: ...", "[Ticket #48213]
#: Priority: Medium", "**Question:** How many ...?"): its name is at most three words.
_FIELD = re.compile(r"^[ \t]*(?:\[[^\]\n]*\][ \t]*)?(?:\*\*|__)?[A-Za-z][\w#-]*(?:[ \t]+[\w#-]+){0,2}[ \t]*"
                    r"(?:\*\*|__)?:(?:\*\*|__)?(?:[ \t]+(.*\S))?[ \t]*$")
#: Fields on one line, set apart by bars or slashes ("TICKET #48213 | Priority: Medium | Reporter: A. Mehta").
_PARTS = re.compile(r"[ \t]+[|/][ \t]+")
#: A list's item mark at a line's start ("- ", "\u2022 ", "2. ", "- [ ] ").
_ITEM = re.compile(r"^[ \t]*(?:[-*\u2022]|\d{1,2}[.)])[ \t]+(?:\[[ xX]?\][ \t]+)?")
#: A reply's quote marks at a line's start ("> How many ...?").
_QUOTING = re.compile(r"^[ \t]*(?:>[ \t]?)+")
#: A comment's mark at a line's start ("# ", "// ", "-- ").
_COMMENT = re.compile(r"^[ \t]*(?:#+|//+|--)[ \t]+")
#: A heading in Markdown's bold on a line of its own ("**Describe the request**").
_HEADING = re.compile(r"^[ \t]*(?:\*\*|__)[^*_\n]+(?:\*\*|__)[ \t]*$")
#: A line of code: an assignment, a definition, a raise or an import, or a call alone on its line ("df =
#: run_query(q)", "raise NotImplementedError", "result = client.ask(_)"); not one that quotes ('ask("...")').
_CODE = re.compile(r"^[ \t]*(?:[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]*[-+*/]?=(?!=)[ \t]*\S"
                   r"|(?:def|class)[ \t]+\w+.*:[ \t]*$|(?:import|raise)[ \t]+[\w.]+(?:\(.*\))?[ \t]*$"
                   r"|[A-Za-z_][\w.]*\([^()\n]*\)[ \t]*;?[ \t]*$)")
#: A SQL statement's line, its keywords in capitals ("SELECT ??? FROM ???", "FROM ???;", "SELECT name FROM
#: singer"): not a question that starts with the word ("SELECT the names of ...").
_SQL = re.compile(r"^[ \t]*(?:SELECT|FROM|WHERE|JOIN|GROUP BY|ORDER BY|HAVING|LIMIT|WITH|INSERT|UPDATE|DELETE)\b"
                  r"(?=.*(?:\b(?:FROM|WHERE|JOIN|BY|AS|ON|AND|LIMIT)\b|\?\?|;[ \t]*$|\*))")
#: A code block's fence ("```", "```sql").
_FENCE = re.compile(r"^[ \t]*```")
#: A reply's and a forward's marks ("Re: ...", "Fwd: ..."), which carry a message rather than name a field.
_REPLYING = frozenset("re fw fwd".split())
#: A number a document is filed under ("#88102", "T-3307", "CR-5520", "GDPR/INT/2023/442").
_FILED = re.compile(r"#\d|\b[A-Z]{1,6}[-/][A-Z0-9/-]*\d")
#: The line a mail client adds below a message ("Sent from my iPhone", "Get Outlook for Android").
_CLIENT = re.compile(r"(?i)^[ \t]*(?:Sent from my|Get Outlook for)\b")
#: A web page's line around a post: its parts set apart by dots, arrows or wide spaces ("Asked 2 days ago  Modified
#: today  Viewed 48 times", "Discussion forum › Unit 2 › SQL basics", "14 comments · share · save"), or
#: who posted it ("Posted by u/[deleted] · 3h").
_PAGE_PARTS = re.compile(r"[ \t]+[\u00b7\u203a\u00bb|][ \t]+|[ \t]{2,}")
_BYLINE = re.compile(r"(?i)^[ \t]*(?:posted|asked|answered|submitted|edited|modified|shared|written)[ \t]+(?:by|in)\b")
#: The line an e-mail's signature starts after ("--", "__", "---").
_SEPARATOR = re.compile(r"^[ \t]*(?:--|__+|-{3,})[ \t]*$")


def fields(text: str, asks: Callable[[str], bool]) -> str:
    """Where most of the text's lines are a form's fields ("Requester: Finance Ops\nPriority: Medium\n
    Description: How many ...?\nDue: Friday", a YAML body), the text without the fields that do not ask and
    the names of those that do."""
    lines = [part for line in text.splitlines() if line.strip() for part in _parts(line)]
    found = [_FIELD.match(line) for line in lines]
    if sum(f is not None for f in found) < 2 or 2 * sum(f is not None for f in found) <= len(lines):
        return text
    kept = [line if f is None else f.group(1) for line, f in zip(lines, found, strict=True)
            if f is None or (f.group(1) and asks(f.group(1)))]
    return "\n".join(kept) if any(asks(line) for line in kept) else text


def items(text: str, asks: Callable[[str], bool]) -> str:
    """The text without the lines that are a document's items and ask nothing (see the module's docstring):
    fields, code, comments, a signature, and the other items of a list the question is one of."""
    written = text.splitlines()
    lines = _unfenced(written, asks)
    if len(lines) < len(written):
        text = "\n".join(lines)
    blocks = _blocks(lines)
    if len(blocks) < 2:
        return text
    asking = [any(c.isalnum() for line in block for c in line) and not _CLIENT.match(block[0])
              and not _SQL.match(block[0]) and asks(" ".join(_body(line) for line in block)) for block in blocks]
    if not any(asking):
        return text
    first = asking.index(True)
    last = len(asking) - 1 - asking[::-1].index(True)
    signature = next((i for i, block in enumerate(blocks) if i > last and _SEPARATOR.match(block[0])), len(blocks))
    listed = any(a and _ITEM.match(block[0]) for a, block in zip(asking, blocks, strict=True))
    dropped, head = [], False
    for i, (block, a) in enumerate(zip(blocks, asking, strict=True)):
        if _ITEM.match(block[0]) and (i == 0 or not _ITEM.match(blocks[i - 1][0])):
            head = i > 0 and asking[i - 1]  # what the list is under: "List these:" asks, "Steps:" does not
        # a list after the question under a line that asks nothing ("Steps:"); one before it may hold what
        # the question is about ("Need numbers for:\n- piano\n- guitar\nHow many are there each?")
        dropped.append(i >= signature or (not a and (_item(block[0], listed or (not head and i > first))
                                                     or (i < first and len(block) == 1 and _titled(block[0])))))
    kept = [block for block, d in zip(blocks, dropped, strict=True) if not d]
    # a field alone beside a question may be its condition ("How many ...?" and "Status: Open" on the next line),
    # not one the user names as theirs ("What I tried: a couple of queries")
    lone = [_body(block[0]) for block, d in zip(blocks, dropped, strict=True) if d]
    if len(kept) == len(blocks) or (len(lone) == 1 and _parts(lone[0]) == lone and _FIELD.match(lone[0])
                                    and not PERSONS.intersection(_words(lone[0].split(":")[0]))):
        return text
    return "\n".join(line for block in kept for line in block)


def _unfenced(lines: list[str], asks: Callable[[str], bool]) -> list[str]:
    """The lines without a code block's code ("```sql\nSELECT ??? FROM ???\n```") where a line outside it, or one
    in it, asks: the code is the user's attempt; a comment in it may be the question ("-- How many ...?"), and so
    may a line the block only sets apart ("```\nHow many ...?\n```")."""
    fenced, inside = [], False
    for line in lines:
        fence = _FENCE.match(line) is not None
        # read only inside a block: most texts have none, and asking of every line would be work for nothing
        fenced.append(fence or (inside and (_SQL.match(line) is not None
                                            or (_COMMENT.match(line) is None and not asks(_body(line))))))
        inside = inside != fence
    if not any(fenced) or not any(asks(_body(line)) for line, f in zip(lines, fenced, strict=True) if not f):
        return lines
    return [line for line, f in zip(lines, fenced, strict=True) if not f]


def _parts(line: str) -> list[str]:
    """A line's fields where it holds two or more set apart by bars or slashes, else the line."""
    parts = _PARTS.split(line)
    return parts if sum(_FIELD.match(part) is not None for part in parts) > 1 else [line]


def _blocks(lines: list[str]) -> list[list[str]]:
    """The text's lines grouped with those that go on with them: the one before, with no blank line between, is
    no item or title and ends with no mark, and the line starts in lower case or with a mark and is no item."""
    blocks: list[list[str]] = []
    going = False  # whether the line before may go on on this one
    for line in lines:
        if not line.strip():
            going = False
            continue
        start = line.lstrip()[:1]
        item = _item(line, listed=True)
        if going and (start.islower() or not start.isalnum()) and not item and not _SEPARATOR.match(line):
            blocks[-1].append(line)
        else:
            blocks.append([line])
        going = not item and not _titled(line) and not line.rstrip().endswith((".", "?", "!", ":"))
    return blocks


def _item(line: str, listed: bool) -> bool:
    """A line that is a document's item: a field, code, a comment, a heading, a mail client's line, or, where the
    question is an item of a list, another item that does not go on with it."""
    body = _body(line)
    return (_fielded(body) or (_CODE.match(body) is not None and not QUOTES.intersection(body))
            or _SQL.match(line) is not None or _BYLINE.match(line) is not None or _paged(line)
            or _COMMENT.match(line) is not None
            or _HEADING.match(line) is not None or _CLIENT.match(line) is not None
            or (listed and _ITEM.match(line) is not None and not _goes_on(body)))


def _paged(line: str) -> bool:
    """A web page's line of three or more short parts, none a sentence (_PAGE_PARTS)."""
    parts = _PAGE_PARTS.split(line.strip())
    return len(parts) >= 3 and all(0 < len(_words(part)) <= 4 and part[-1] not in ".?!" for part in parts)


def _titled(line: str) -> bool:
    """A document's title: no closing mark, and a number it is filed under and no function word, or all in
    capitals and in a message's words ("Task T-3307", "Form submission #88102", "AUDIT FINDING FOLLOW-UP"; not
    "Q3 revenue")."""
    words = _words(line)
    letters = [c for c in line if c.isalpha()]
    # in capitals and in a message's words ("AUDIT FINDING FOLLOW-UP"; not "SALES REPORT", maybe the data's)
    shouted = len(letters) > 3 and all(c.isupper() for c in letters) and bool(MESSAGING.intersection(words))
    return line.rstrip()[-1:] not in (".", "?", "!", ":") and (
        shouted or (_FILED.search(line) is not None and not STOPWORDS.intersection(words)))


def _body(line: str) -> str:
    """A line without its quote marks and its item or comment mark."""
    return _COMMENT.sub("", _ITEM.sub("", _QUOTING.sub("", line, count=1), count=1), count=1)


def _fielded(body: str) -> bool:
    """A field ("Status: Open") or fields set apart by bars or slashes ("Team: Ops / Due: 15-Aug"), not one a
    preposition or a going-on's word names, a condition of the question's ("From: 2014", "Only: active"), nor a
    reply's or a forward's mark before what it carries ("Re: Please name three ...")."""
    parts = _PARTS.split(body)
    return any(m is not None and (_words(m.group(0)) or [""])[0] not in GOING_ON | _REPLYING
               for m in map(_FIELD.match, parts))


def _goes_on(body: str) -> bool:
    """An item that goes on with the question ("their ages", "only the active ones", "latest first")."""
    words = _words(body)
    return bool(words) and (words[0] in GOING_ON or words[0] in CONTINUING or bool(REFERRING.intersection(words)))


def _words(text: str) -> list[str]:
    return [w for _, _, w in tokens(text)]

