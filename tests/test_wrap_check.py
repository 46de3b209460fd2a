"""The wrapped-question check counts a core that lost the question, not one that kept it with debris."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import wrap_check  # noqa: E402


def test_a_core_that_lost_the_question_counts() -> None:
    question = "Please name three communities that experience the fraud incident."
    assert wrap_check.lost(question, "did anyone figure it out?")
    assert not wrap_check.lost(question, "Discussion forum Unit 2 " + question)
    assert not wrap_check.lost(question, question.lower().rstrip("."))
    assert not wrap_check.lost("", "anything")


def test_it_counts_per_list(mini_index_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps({"query_id": str(i), "question": q}) + "\n" for i, q in enumerate(
        ["How many singers are there?", "List the names of all concerts.", "Which stadium is the largest?"])))
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps([{"prefix": "Hi team, quick one: ", "suffix": " Thanks!"}]))
    replies = tmp_path / "replies.json"  # every other question as a forum reply, which the stand-in reader loses
    replies.write_text(json.dumps([{"prefix": "Re: ", "suffix": "\nSame here, anyone?"}, {"suffix": " ty"}]))

    def reader(text: str, lexicon: frozenset[str] = frozenset()) -> str:
        assert lexicon  # the index's dictionary, as the search reads questions
        return "anyone?" if text.startswith("Re: ") else text

    monkeypatch.setattr(wrap_check, "core", reader)
    assert wrap_check.main(["--index-dir", str(mini_index_dir), "--queries", str(queries),
                            "--wrappings", str(kept), str(replies)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "wrap_check: kept: 0 of 3 questions lost to the wrapping",
        "wrap_check: replies: 2 of 3 questions lost to the wrapping"]
