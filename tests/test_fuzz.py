"""Fuzzing the running search.sh: >= 10,000 seeded request lines, good and hostile, through ONE process.

Contract checked (the verifier's, plus what the server promises for bad input):
  * the process never dies or hangs, and exits 0 at EOF;
  * every line that "carries a string query_id" gets exactly one answer, in order, valid by the verifier's
    rules; every other non-blank line gets no answer and exactly one "ignored a request line" diagnostic;
    blank (ASCII-whitespace-only) lines are skipped silently.

"Carries a string query_id" is defined the way the server reads a line, which is this module's oracle:
bytes decoded as UTF-8 with invalid sequences replaced by U+FFFD, then Python's ``json.loads`` (so a
repeated key keeps its LAST value, NaN/Infinity are accepted, nesting past the parser's recursion limit
and integers longer than 4300 digits make the line unreadable), the result an object whose "query_id" is a
str. Every generated line also carries the generator's own intent ("answer"/"ignore"/"blank"), checked
against the oracle, so the oracle is not merely a copy of the code under test.

Lone-surrogate ids (a regression: they used to kill the process) are part of the bulk run; long non-ASCII
ids (which once got an ASCII-escaped, oversized answer) have their own test.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import join_key, validate_answer
from search_driver import SearchProcess

from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog

ROOT = Path(__file__).resolve().parent.parent
SEARCH_SH = ROOT / "submission" / "search.sh"
SEED = 20261129
N_LINES = 10_500
#: Generous hang guard for the whole exchange; never asserted as a timing.
HANG_GUARD_S = 300.0

MAX_RESPONSE_BYTES = 65536
JoinKey = frozenset[tuple[str, str]]


def validate(raw: bytes, query_id: str, tables: set[str], rels: set[JoinKey]) -> tuple[set[str], set[JoinKey]]:
    """verify.py's validate(), shared with the other tests through conftest."""
    return validate_answer(raw, query_id, tables, rels)


def catalog_keys(catalog: Mapping[str, Any]) -> tuple[set[str], set[JoinKey]]:
    """(table ids, relationship keys) read the verifier's way, from the raw catalog."""
    return {t["table_id"] for t in catalog["tables"]}, {join_key(r) for r in catalog["relationships"]}


# --- a small catalog, written by the test -------------------------------------------------------------------
def _table(
    tid: str, desc: str, cols: list[tuple[str, str]], pk: str, rows: list[list[Any]]
) -> dict[str, Any]:
    group, name = tid.split(".")
    return {
        "table_id": tid,
        "group": group,
        "name": name,
        "description": desc,
        "columns": [{"name": c, "type": t, "description": c.replace("_", " ").lower()} for c, t in cols],
        "primary_key": [pk],
        "sample_rows": [dict(zip([c for c, _ in cols], r, strict=True)) for r in rows],
    }


def _rel(lt: str, lc: str, rt: str, rc: str) -> dict[str, str]:
    return {"left_table": lt, "left_column": lc, "right_table": rt, "right_column": rc}


def small_catalog() -> dict[str, Any]:
    """Three groups, nine tables, seven relationships, a few sample rows (non-ASCII ones included)."""
    t = [
        _table(
            "concert.singer",
            "singer",
            [("Singer_ID", "number"), ("Name", "text"), ("Country", "text"), ("Age", "number")],
            "Singer_ID",
            [
                [1, "Joe Sharp", "Netherlands", 52],
                [2, "Timbaland", "United States", 32],
                [3, "Björk Guðmundsdóttir", "Iceland", 55],
            ],
        ),
        _table(
            "concert.concert",
            "concert",
            [("Concert_ID", "number"), ("Concert_Name", "text"), ("Stadium_ID", "number"), ("Year", "text")],
            "Concert_ID",
            [[1, "Auditions", 1, "2014"], [2, "Super bootcamp", 2, "2014"]],
        ),
        _table(
            "concert.stadium",
            "stadium",
            [("Stadium_ID", "number"), ("Location", "text"), ("Capacity", "number")],
            "Stadium_ID",
            [[1, "Raith Rovers", 10104], [2, "Ayr United", 11998]],
        ),
        _table(
            "concert.singer_in_concert",
            "singer in concert",
            [("Concert_ID", "number"), ("Singer_ID", "number")],
            "Concert_ID",
            [[1, 2], [1, 3]],
        ),
        _table(
            "pets.student",
            "student",
            [("StuID", "number"), ("LName", "text"), ("Fname", "text"), ("Major", "number")],
            "StuID",
            [[1001, "Smith", "Linda", 600]],
        ),
        _table(
            "pets.pets",
            "pets",
            [("PetID", "number"), ("PetType", "text"), ("pet_age", "number")],
            "PetID",
            [[2001, "cat", 3], [2002, "dog", 2]],
        ),
        _table(
            "pets.has_pet", "has pet", [("StuID", "number"), ("PetID", "number")], "StuID", [[1001, 2001]]
        ),
        _table(
            "flights.airport",
            "airport",
            [("apid", "number"), ("name", "text"), ("city", "text")],
            "apid",
            [[1, "Goroka", "Goroka"], [2, "東京国際空港", "東京"]],
        ),
        _table(
            "flights.route",
            "route",
            [("rid", "number"), ("src_apid", "number"), ("dst_apid", "number")],
            "rid",
            [[1, 1, 2]],
        ),
    ]
    rels = [
        _rel("concert.concert", "Stadium_ID", "concert.stadium", "Stadium_ID"),
        _rel("concert.singer_in_concert", "Concert_ID", "concert.concert", "Concert_ID"),
        _rel("concert.singer_in_concert", "Singer_ID", "concert.singer", "Singer_ID"),
        _rel("pets.has_pet", "StuID", "pets.student", "StuID"),
        _rel("pets.has_pet", "PetID", "pets.pets", "PetID"),
        _rel("flights.route", "src_apid", "flights.airport", "apid"),
        _rel("flights.route", "dst_apid", "flights.airport", "apid"),
    ]
    return {"tables": t, "relationships": rels}


def build_small_index(root: Path, catalog: Mapping[str, Any] | None = None) -> Path:
    """Lexical-only index of `catalog` (default: small_catalog()) under root/index; no embedders."""
    index_dir = root / "index"
    build_index(
        parse_catalog(catalog or small_catalog()), index_dir, dense=None, multi=None, log=lambda _m: None
    )
    return index_dir


def server_env(cache_dir: Path) -> dict[str, str]:
    """No API key, no local model, a private cache: the server is lexical-only and offline."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JINA_", "RETRIEVER_"))}
    env.update(RETRIEVER_LOCAL_MODEL="0", RETRIEVER_CACHE_DIR=str(cache_dir))
    return env


# --- the oracle -------------------------------------------------------------------------------------------
BLANK = "blank"


def oracle(raw: bytes) -> str | None:
    """BLANK for a silently skipped line, the query_id owed an answer, or None (ignored with a diagnostic)."""
    if not raw.strip():
        return BLANK
    try:
        msg = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if isinstance(msg, dict) and isinstance(msg.get("query_id"), str):
        return msg["query_id"]
    return None


# --- the generator ----------------------------------------------------------------------------------------
WORDS = [
    "singer",
    "singers",
    "concert",
    "concerts",
    "stadium",
    "capacity",
    "country",
    "age",
    "name",
    "names",
    "student",
    "students",
    "pet",
    "pets",
    "dog",
    "cat",
    "airport",
    "airports",
    "route",
    "routes",
    "city",
    "flight",
    "year",
    "location",
    "average",
    "how",
    "many",
    "which",
    "what",
    "list",
    "oldest",
    "youngest",
    "each",
    "every",
    "total",
    "number",
    "count",
    "Netherlands",
    "Iceland",
    "Goroka",
    "Björk",
    "東京",
    "smith",
    "linda",
]
CONTROL = [chr(c) for c in range(0x20) if c != 0x0A] + ["\x7f"]
ODD_TEXT = [
    "",
    " ",
    "\t",
    "é",
    "ß",
    "Ω",
    "東京",
    "😀",
    "👩‍👩‍👧",
    "e\u0301",
    "\u202e",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\u00a0",
    "\ufffd",
    "\uffff",
    "\U0010ffff",
    "\\",
    '"',
    "/",
    "\\u0000",
    "%s",
    "{}",
    "[]",
    "null",
    "'; DROP TABLE singer; --",
    "$(touch pwned)",
    "`id`",
    "../../etc/passwd",
    "\x00",
    "\x1b[31m",
]
INVALID_UTF8 = [
    b"\xff",
    b"\xfe",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\x80",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xc3",
    b"\xa0\xa1",
]
BLANKS = [b"", b" ", b"\t", b"\r", b"  \t \r", b"\x0b", b"\x0c", b" \x0c\t"]
NON_STRING = [None, 0, -1, 7, 3.5, 1e308, True, False, [], ["q1"], {}, {"id": "q"}, [[[]]]]


class Gen:
    """Seeded line factory; every method returns (line, intent, expected query_id or None)."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.n = 0

    def uid(self) -> str:
        self.n += 1
        return f"fz{self.n:06d}"

    def words(self, lo: int = 1, hi: int = 14) -> str:
        return " ".join(self.r.choice(WORDS) for _ in range(self.r.randint(lo, hi)))

    def odd(self, k: int = 4) -> str:
        return "".join(self.r.choice(ODD_TEXT + CONTROL + WORDS) for _ in range(self.r.randint(1, k)))

    def dumps(self, obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=self.r.random() < 0.5).encode("utf-8")

    # answered lines
    def valid(self) -> tuple[bytes, str, str | None]:
        qid = self.uid()
        msg: dict[str, Any] = {"query_id": qid, "question": self.words()}
        if self.r.random() < 0.2:
            msg["extra"] = self.r.choice([1, "x", None, [1, 2], {"a": {"b": []}}])
        if self.r.random() < 0.2:
            msg = dict(reversed(list(msg.items())))
        return self.dumps(msg), "answer", qid

    def odd_question(self) -> tuple[bytes, str, str | None]:
        qid = self.uid()
        choice = self.r.randrange(6)
        if choice == 0:
            msg: dict[str, Any] = {"query_id": qid}
        elif choice == 1:
            msg = {"query_id": qid, "question": self.r.choice(NON_STRING)}
        elif choice == 2:
            msg = {"query_id": qid, "question": self.odd(12)}
        elif choice == 3:
            msg = {"query_id": qid, "question": self.words() + " " + self.odd() + " " + self.words()}
        elif choice == 4:  # lone surrogates in the question
            msg = {"query_id": qid, "question": "singer \ud800 age \udfff"}
        else:
            msg = {"query_id": qid, "question": self.r.choice(["", " ", "\n\n", "?", "..."])}
        return json.dumps(msg).encode("ascii"), "answer", qid

    def odd_id(self) -> tuple[bytes, str, str | None]:
        """Unique ids with unicode, escapes and control characters (escaped, so the JSON stays valid)."""
        qid = self.uid() + self.odd(6)
        if self.r.random() < 0.15:  # lone surrogates, only expressible as \u escapes
            qid += self.r.choice(["\ud800", "\udfff", "\udbff\udbff", "\udc00x\ud83d"])
            return json.dumps({"query_id": qid, "question": self.words()}).encode("ascii"), "answer", qid
        return self.dumps({"query_id": qid, "question": self.words()}), "answer", qid

    def huge(self) -> tuple[bytes, str, str | None]:
        qid = self.uid()
        size = self.r.choice([10_000, 70_000, 250_000, 600_000])
        where = self.r.randrange(4)
        if where == 0:
            msg: dict[str, Any] = {"query_id": qid, "question": (self.words(40, 40) + " ") * (size // 250)}
        elif where == 1:
            msg = {"query_id": qid, "question": self.r.choice("ab é😀") * size}
        elif where == 2:
            msg = {"query_id": qid, "question": self.words(), "padding": "x" * size}
        else:  # an id as long as still fits a valid answer (the verifier caps answers at 64 KiB)
            qid = qid + "i" * self.r.choice([100, 2_000, 30_000])
            msg = {"query_id": qid, "question": self.words()}
        return self.dumps(msg), "answer", qid

    def invalid_utf8_in_string(self) -> tuple[bytes, str, str | None]:
        qid = self.uid()
        bad = self.r.choice(INVALID_UTF8)
        if self.r.random() < 0.6:  # in the question: answered, id untouched
            line = b'{"query_id": "' + qid.encode() + b'", "question": "singer ' + bad + b' age"}'
            return line, "answer", qid
        # in the id: the server reads it with U+FFFD for each bad sequence and echoes that
        line = b'{"query_id": "' + qid.encode() + bad + b'", "question": "pets"}'
        return line, "answer", (qid.encode() + bad).decode("utf-8", "replace")

    def duplicate_keys(self) -> tuple[bytes, str, str | None]:
        """json.loads keeps the LAST duplicate; the server must follow it."""
        a, b = self.uid(), self.uid()
        case = self.r.randrange(5)
        if case == 0:
            return f'{{"query_id": "{a}", "question": "singer", "query_id": "{b}"}}'.encode(), "answer", b
        if case == 1:
            return f'{{"query_id": 5, "question": "pets", "query_id": "{b}"}}'.encode(), "answer", b
        if case == 2:
            return f'{{"query_id": "{a}", "question": "pets", "query_id": null}}'.encode(), "ignore", None
        if case == 3:
            return f'{{"query_id": "{a}", "question": 1, "question": "age of singers"}}'.encode(), "answer", a
        return f'{{"query_id": "{a}", "query_id": "{a}", "query_id": ["{b}"]}}'.encode(), "ignore", None

    def escaped_key(self) -> tuple[bytes, str, str | None]:
        """Key spelled with escapes still is "query_id"; BOM, CRLF and NaN edge cases."""
        qid = self.uid()
        case = self.r.randrange(4)
        if case == 0:
            return f'{{"\\u0071uery_id": "{qid}", "question": "x"}}'.encode(), "answer", qid
        if case == 1:
            return f'{{"query_id": "{qid}", "question": "stadium"}}\r'.encode(), "answer", qid
        if case == 2:
            return (
                f'{{"query_id": "{qid}", "question": "age", "w": NaN, "v": -Infinity}}'.encode(),
                "answer",
                qid,
            )
        return b"\xef\xbb\xbf" + f'{{"query_id": "{qid}"}}'.encode(), "ignore", None

    def deep(self) -> tuple[bytes, str, str | None]:
        """Nesting far below or far above the parser's limit (never near it: the limit varies)."""
        qid = self.uid()
        shallow = self.r.randint(1, 300)
        deep = self.r.choice([5_000, 50_000, 200_000])
        case = self.r.randrange(5)
        if case == 0:
            return b"[" * deep, "ignore", None
        if case == 1:
            return b'{"a":' * deep + b"1" + b"}" * deep, "ignore", None
        if case == 2:  # valid id, but the line as a whole is beyond what the parser reads
            return (
                (f'{{"query_id": "{qid}", "x": '.encode() + b"[" * deep + b"]" * deep + b"}"),
                "ignore",
                None,
            )
        if case == 3:
            return (
                (f'{{"query_id": "{qid}", "x": '.encode() + b"[" * shallow + b"]" * shallow + b"}"),
                "answer",
                qid,
            )
        return (
            (
                f'{{"query_id": "{qid}", "question": '.encode()
                + b'{"q":' * shallow
                + b'"x"'
                + b"}" * shallow
                + b"}"
            ),
            "answer",
            qid,
        )

    # ignored lines
    def wrong_type(self) -> tuple[bytes, str, str | None]:
        case = self.r.randrange(3)
        if case == 0:
            return (
                self.dumps({"query_id": self.r.choice(NON_STRING), "question": self.words()}),
                "ignore",
                None,
            )
        if case == 1:
            return self.dumps({"question": self.words(), "id": self.uid()}), "ignore", None
        top = self.r.choice(
            [[{"query_id": self.uid(), "question": "x"}], "query_id", 42, None, True, 1.5, []]
        )
        return self.dumps(top), "ignore", None

    def truncated(self) -> tuple[bytes, str, str | None]:
        line, _, _ = self.valid()
        cut = self.r.randrange(0, len(line) - 1)  # drops at least the closing brace: never valid JSON
        return line[:cut] if line[:cut].strip() else b"{", "ignore", None

    def raw_control(self) -> tuple[bytes, str, str | None]:
        """An unescaped control character inside a string is not JSON (strict parsing)."""
        qid = self.uid()
        c = self.r.choice([c for c in CONTROL if c != "\x7f"]).encode()  # DEL is legal raw
        return b'{"query_id": "' + qid.encode() + b'", "question": "a' + c + b'b"}', "ignore", None

    def big_number(self) -> tuple[bytes, str, str | None]:
        """Integers past CPython's 4300-digit limit make json.loads fail: the whole line is unreadable."""
        qid = self.uid()
        return f'{{"query_id": "{qid}", "n": {"9" * 5000}}}'.encode(), "ignore", None

    def garbage(self) -> tuple[bytes, str, str | None]:
        n = self.r.choice([1, 5, 50, 500, 100_000])
        data = bytes(self.r.randrange(256) for _ in range(min(n, 2000))) * max(1, n // 2000)
        return data.replace(b"\n", b" "), "either", None

    def blank(self) -> tuple[bytes, str, str | None]:
        return self.r.choice(BLANKS), "blank", None

    def mixed_utf8_outside(self) -> tuple[bytes, str, str | None]:
        """Invalid bytes outside any string: the line is not JSON."""
        qid = self.uid()
        return (
            b'{"query_id": "' + qid.encode() + b'",' + self.r.choice(INVALID_UTF8) + b' "question": "x"}',
            "ignore",
            None,
        )

    def mutated(self) -> tuple[bytes, str, str | None]:
        """A valid line with a few random byte flips: anything may happen, the oracle decides."""
        line = bytearray(self.valid()[0])
        for _ in range(self.r.randint(1, 3)):
            line[self.r.randrange(len(line))] = self.r.randrange(256)
        return bytes(line).replace(b"\n", b" "), "either", None

    def line(self) -> tuple[bytes, str, str | None]:
        kinds: list[tuple[Callable[[], tuple[bytes, str, str | None]], int]] = [
            (self.valid, 30),
            (self.odd_question, 6),
            (self.odd_id, 6),
            (self.huge, 1),
            (self.invalid_utf8_in_string, 5),
            (self.duplicate_keys, 5),
            (self.escaped_key, 3),
            (self.deep, 3),
            (self.wrong_type, 8),
            (self.truncated, 8),
            (self.raw_control, 4),
            (self.big_number, 1),
            (self.garbage, 4),
            (self.blank, 6),
            (self.mixed_utf8_outside, 3),
            (self.mutated, 7),
        ]
        fn = self.r.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        line, intent, qid = fn()
        assert b"\n" not in line
        return line, f"{fn.__name__}:{intent}", qid


def generate(seed: int, n: int) -> Iterator[tuple[bytes, str, str | None]]:
    g = Gen(seed)
    for _ in range(n):
        yield g.line()


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("fuzz")
    cat = small_catalog()
    return build_small_index(root, cat), cat


def test_generator_intents_agree_with_the_oracle() -> None:
    """Sanity of the spec: what each generator means a line to be is what the oracle says it is."""
    for line, intent, qid in generate(SEED + 1, 4000):
        got = oracle(line)
        kind = intent.split(":")[1]
        if kind == "answer":
            assert got == qid, (intent, line[:200])
        elif kind == "ignore":
            assert got is None, (intent, line[:200])
        elif kind == "blank":
            assert got == BLANK


def test_fuzz_one_search_process(
    small_index: tuple[Path, dict[str, Any]], tmp_path: Path, report_counts: Callable[[str], None]
) -> None:
    index_dir, cat = small_index
    tables, rels = catalog_keys(cat)
    lines = list(generate(SEED, N_LINES))
    expected = [oracle(line) for line, _, _ in lines]
    owed = [q for q in expected if q is not None and q != BLANK]
    ignored = sum(1 for q in expected if q is None)
    blank = sum(1 for q in expected if q == BLANK)
    planned = [
        q
        for (_, intent, _), q in zip(lines, expected, strict=True)
        if not intent.endswith(":either") and q not in (None, BLANK)
    ]
    assert len(set(planned)) == len(planned), "generated query ids must be unique"
    kinds: dict[str, int] = {}
    for _, intent, _ in lines:
        kinds[intent] = kinds.get(intent, 0) + 1

    stderr_path = tmp_path / "stderr.log"
    sp = SearchProcess(SEARCH_SH, index_dir, server_env(tmp_path / "cache"), stderr=stderr_path)
    try:
        assert sp.wait_for(lambda ls: len(ls) >= 1, 60), "no ready line"
        assert json.loads(sp.lines[0]) == {"ready": True}
        # Write in chunks of ~256 KiB while the reader thread drains the answers.
        buf: list[bytes] = []
        size = 0
        total_bytes = 0
        for line, _, _ in lines:
            buf.append(line + b"\n")
            size += len(line) + 1
            if size >= 1 << 18:
                sp.send_raw(b"".join(buf))
                total_bytes += size
                buf, size = [], 0
        sentinel = "fz-sentinel"
        buf.append(json.dumps({"query_id": sentinel, "question": "how many singers"}).encode() + b"\n")
        sp.send_raw(b"".join(buf))
        total_bytes += size
        got_all = sp.wait_for(lambda ls: bool(ls) and b"fz-sentinel" in ls[-1], HANG_GUARD_S)
        alive = sp.proc.poll() is None
    finally:
        rc = sp.close()

    answers = sp.lines[1:]
    summary = (
        f"fuzz: {len(lines)} lines ({total_bytes / 2**20:.1f} MiB): {len(owed)} owed an answer, "
        f"{ignored} ignored, {blank} blank; {len(answers) - 1} answers received; rc={rc}; kinds={kinds}"
    )
    report_counts(summary)
    assert got_all, f"server died or hung before answering everything; {summary}"
    assert alive, f"server was not alive after the last request; {summary}"
    assert rc == 0, f"exit code {rc} at EOF; {summary}"
    got_ids = [json.loads(a)["query_id"] for a in answers]
    assert got_ids == [*owed, sentinel], (
        f"answers do not match the owed query ids one-to-one in order; {summary}"
    )
    for raw, qid in zip(answers, [*owed, sentinel], strict=True):
        validate(raw, qid, tables, rels)

    err = stderr_path.read_bytes().decode("utf-8", "replace")
    diags = [ln for ln in err.splitlines() if ln.startswith("search: ignored a request line:")]
    assert len(diags) == ignored, f"{len(diags)} diagnostics for {ignored} ignored lines; {summary}"
    assert "Traceback" not in err
    assert len(owed) >= 5000 and ignored >= 2000 and blank >= 300, summary


# --- known bugs, pinned -----------------------------------------------------------------------------------
def _exchange(index_dir: Path, tmp_path: Path, payload: bytes) -> tuple[list[bytes], int | None, str]:
    sp = SearchProcess(SEARCH_SH, index_dir, server_env(tmp_path / "cache"), stderr=tmp_path / "stderr.log")
    sp.send_raw(payload)
    rc = sp.close()
    return sp.lines[1:], rc, (tmp_path / "stderr.log").read_text("utf-8", "replace")


def test_question_types_get_a_default_plan_with_a_diagnostic(
    small_index: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    index_dir, cat = small_index
    tables, rels = catalog_keys(cat)
    reqs = [{"query_id": "n1"}, {"query_id": "n2", "question": None}, {"query_id": "n3", "question": ["a"]}]
    answers, rc, err = _exchange(index_dir, tmp_path, b"".join(json.dumps(r).encode() + b"\n" for r in reqs))
    assert rc == 0 and len(answers) == 3
    for raw, r in zip(answers, reqs, strict=True):
        validate(raw, r["query_id"], tables, rels)
    assert err.count("answering with a default plan") == 3


def test_lone_surrogate_query_id_is_answered(
    small_index: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    index_dir, cat = small_index
    tables, rels = catalog_keys(cat)
    payload = b'{"query_id": "s\\ud800", "question": "singer"}\n{"query_id": "after", "question": "pets"}\n'
    answers, rc, _ = _exchange(index_dir, tmp_path, payload)
    assert rc == 0 and len(answers) == 2
    validate(answers[0], "s\ud800", tables, rels)
    validate(answers[1], "after", tables, rels)


def test_long_non_ascii_id_still_fits_without_joins(
    small_index: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    index_dir, cat = small_index
    tables, rels = catalog_keys(cat)
    question = "which singers sang in concerts at which stadiums"
    sp = SearchProcess(SEARCH_SH, index_dir, server_env(tmp_path / "cache"), stderr=tmp_path / "stderr.log")
    try:
        sp.send_raw(json.dumps({"query_id": "probe", "question": question}).encode() + b"\n")
        assert sp.wait_for(lambda ls: len(ls) >= 2, 60)
        probe = json.loads(sp.lines[1])
        assert probe["joins"], "the probe question must be answered with joins"
        # Size the id so the full answer is just over 64 KiB but the answer without joins fits.
        base = len(sp.lines[1]) - len("probe")
        joins_len = len(json.dumps(probe["joins"], ensure_ascii=False).encode()) - 2
        qid = "é" * ((MAX_RESPONSE_BYTES - (base - joins_len)) // 2)
        sp.send_raw(json.dumps({"query_id": qid, "question": question}).encode() + b"\n")
        assert sp.wait_for(lambda ls: len(ls) >= 3, 60)
    finally:
        rc = sp.close()
    assert rc == 0
    validate(sp.lines[2], qid, tables, rels)


def test_id_too_long_for_any_valid_answer_still_gets_one_line(
    small_index: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """No valid answer exists for a 70 KB id; defined: still exactly one line, echoing it, no joins."""
    index_dir, _ = small_index
    qid = "q" * 70_000
    payload = json.dumps({"query_id": qid, "question": "singer"}).encode() + b"\n"
    answers, rc, _ = _exchange(index_dir, tmp_path, payload + b'{"query_id": "next"}\n')
    assert rc == 0 and len(answers) == 2
    first = json.loads(answers[0])
    assert first["query_id"] == qid and first["joins"] == [] and len(first["table_ids"]) == 5
    assert json.loads(answers[1])["query_id"] == "next"
