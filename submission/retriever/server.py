"""The persistent JSONL process: one request line in, one flushed answer line out, never dies on input."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import IO, Any

from .api import Retriever

MAX_RESPONSE_BYTES = 65536
#: Questions are cut to this many characters: nobody's question is longer, and it bounds query time.
MAX_QUESTION_CHARS = 2000


def _diag(msg: str) -> None:
    print(f"search: {msg}", file=sys.stderr, flush=True)


def parse_request(line: bytes) -> tuple[str, str]:
    """(query_id, question); ValueError when the line gets no answer, only a diagnostic."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"line is not JSON ({type(e).__name__})") from None
    if not isinstance(msg, dict):
        raise ValueError(f"line is a JSON {type(msg).__name__}, not an object")
    qid = msg.get("query_id")
    if not isinstance(qid, str):
        raise ValueError(f"query_id is {type(qid).__name__}, not a string")
    question = msg.get("question")
    if not isinstance(question, str):
        _diag(f"query {qid[:80]!r}: question is {type(question).__name__}, answering with a default plan")
        question = ""
    return qid, question[:MAX_QUESTION_CHARS]


def encode_answer(out: dict[str, Any]) -> bytes:
    """UTF-8 JSON; ASCII escapes only when a lone surrogate in the id cannot be sent as UTF-8."""
    try:
        return json.dumps(out, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(out, ensure_ascii=True).encode("ascii")


def _silence(stdout: IO[bytes]) -> None:
    """Point a closed stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass


def respond(qid: str, question: str, retriever: Retriever) -> bytes:
    try:
        result = retriever.search(question)
        ids, joins = list(result.table_ids), list(result.joins)
    except Exception as e:  # noqa: BLE001 - any failure still owes the caller a valid answer
        _diag(f"query {qid[:80]!r}: {type(e).__name__}: {e}; answering with a default plan")
        ids, joins = retriever.fallback()
    out: dict[str, Any] = {"query_id": qid, "table_ids": ids, "joins": joins}
    line = encode_answer(out)
    if len(line) + 1 > MAX_RESPONSE_BYTES:
        out["joins"] = []
        line = encode_answer(out)
    return line


def serve(retriever: Retriever, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Answer until EOF; returns the exit code (0 at EOF, 0 when the reader goes away)."""
    try:
        stdout.write(b'{"ready":true}\n')
        stdout.flush()
    except (BrokenPipeError, OSError):
        _silence(stdout)
        return 0
    for raw in stdin:
        if not raw.strip():
            continue
        t0 = time.monotonic()
        try:
            qid, question = parse_request(raw)
        except ValueError as e:
            _diag(f"ignored a request line: {e}")
            continue
        line = respond(qid, question, retriever)
        try:
            stdout.write(line + b"\n")
            stdout.flush()
        except (BrokenPipeError, OSError):
            _diag("stdout closed by the reader; exiting")
            _silence(stdout)
            return 0
        elapsed = time.monotonic() - t0
        if elapsed > 5:
            _diag(f"query {qid[:80]!r} took {elapsed:.1f}s")
    return 0
