"""A request's wrapping around a question ("Write a SQL query to answer this question: ...") is not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from retriever import Retriever
from retriever.config import Settings
from retriever.query.request import core

QUESTION = "Show names for all aircrafts of which John Williams has certificates."


@pytest.mark.parametrize(("asked", "meant"), [
    ("Write a SQL query to answer this question: How many singers do we have?", "How many singers do we have?"),
    ("In the database, how many singers are there?", "how many singers are there?"),
    ("Write a SQL query to find the names of singers older than 30.", "the names of singers older than 30."),
    ("Hi! I have a question about our data. How many singers? Thanks a lot for your help!", "How many singers?"),
    ("How many singers are there? Please answer with a SQL query.", "How many singers are there?"),
    ("Given the database schema, write a query for: What is the average age?", "What is the average age?"),
    ("Can you help me with this query? Which pets are owned by students?", "Which pets are owned by students?"),
    ("Using the tables in our database, list the pets, using SQLite", "list the pets"),
    ("Please help: How many pets? (use joins where needed)", "How many pets?"),
    ("T-SQL please: How many pets? Output the SQL only, no explanation.", "How many pets?"),
    # Sentences about the request rather than the data, around a question with more words of its own.
    ("I'm working on a report. What are the names of singers older than 30?",
     "What are the names of singers older than 30?"),
    ("Good morning. Which pets are owned by students older than 20?",
     "Which pets are owned by students older than 20?"),
    ("What are the names of singers older than 30? Assume PostgreSQL syntax.",
     "What are the names of singers older than 30?"),
    ("Could you help me with a MySQL query? List the names of singers older than 30. Keep it simple.",
     "List the names of singers older than 30. Keep it simple."),
    ("User request: Which pets are owned by students older than 20?",
     "Which pets are owned by students older than 20?"),
    ('Translate this into SQL: "Which pets are owned by students older than 20?"',
     "Which pets are owned by students older than 20?"),
    ("Which pets are owned by students older than 20? (T-SQL for SQL Server, please)",
     "Which pets are owned by students older than 20?"),
    # Prompt templates' labels and chat turns.
    ("### Instruction:\nTranslate to SQL.\n### Input:\nHow many pets are there?\n### Response:",
     "How many pets are there?"),
    ("Instruction: produce a single SELECT statement. Input: Show the pets of students.",
     "Show the pets of students."),
    ("Q: How many pets are there?\nA:", "How many pets are there?"),
    ("User: Which pets are owned by students?\nAssistant:", "Which pets are owned by students?"),
    ("How many pets are there?\nSQL:", "How many pets are there?"),
    ("In BigQuery standard SQL, how many pets are there?", "how many pets are there?"),
    # Chat with no mark to cut at.
    ("hey can u tell me how many pets are there thx", "how many pets are there"),
    ("ok so which pets are owned by students lol", "which pets are owned by students"),
    ("Hi team,\n\nHow many pets are there?\n\nBest regards,\nDana", "How many pets are there?"),
    ("Dear team,\n\nWhich pets are owned by students?\n\nKind regards,\nPriya\nFinance Operations",
     "Which pets are owned by students?"),
    # Chat templates' tags, Markdown headings without a colon, and chat after the question's mark.
    ("<|user|>\nWhich pets are owned by students?\n<|assistant|>\n", "Which pets are owned by students?"),
    ("## Question\nWhich pets are owned by students?\n\n## SQL\n", "Which pets are owned by students?"),
    ("quick q: which pets are owned by students?", "which pets are owned by students?"),
    ("which pets are owned by students older than 20? need it asap", "which pets are owned by students older than 20?"),
    ("In MySQL syntax \u2014 which pets are owned by students?", "which pets are owned by students?"),
])
def test_a_wrapping_is_cut(asked: str, meant: str) -> None:
    assert core(asked) == meant


@pytest.mark.parametrize("asked", [
    "Which singers are in the database?",  # the question's own words, not a wrapping around it
    "What is the question with the most answers for user 5?",  # no clause boundary to cut at
    "Thanks to the donors, how many schools were built?",  # a content word before the comma
    "Hello Kitty products sold in 2020?",
    "Which database has the most tables?",  # nothing of its own would be left
    "Question: ",
    "",
    "List the names of the singers, sorted by age.",  # a boundary, but no framing word
    "How many students are there? And what are their names?",
    "What are the records, sorted by date?",  # what follows the comma does not start a question
    "Show the tables, sorted by name.",
    # Sentences of the question itself, though one names a framing word or a person or nothing of its own.
    "Which database administrators earn the most? List them.",
    "Which musicians have put out 3 or more records? Give their names and identifiers, sorted alphabetically.",
    "Who is the sales representative of the customer? Include the full name of employee and his supervisor.",
    "Which customer has the most reviews? Give its code.",
    "Which U.S. states have two or more congressmen?",
    "How many pupils would the Fit Firsties! campaign help?",
    "What is the rule number 7-38-030, 010 (A), 005 (A).",
    "Which singers? I need them for the weekly report.",  # the question has no more words of its own
    "Singers: How many are from France?",  # a label, but none a prompt template uses
    "Which user has the most answers?",  # "user" labels a turn only before a colon
    "So how many singers are there?",  # "so" is chat only in a run with a word only chat uses
    "How many students thank their teachers?",  # a closing run is the question's last words only
    "Which is best, red or blue? List the cars by price.",  # a sentence with "best" and a comma, not a close
    'Which paper\'s title contains the word "Database"?',  # a quote is no clause mark
    "List the codes 7-38-030, 010 (A), 005 (A).",  # "(A)" is no label
    'List all answers to the question "Any comments" in 2014.',
    "How many pets are there?\nWhich of them are dogs?",  # a line break between two questions keeps both
])
def test_a_question_as_written_is_left_as_it_is(asked: str) -> None:
    assert core(asked) == asked


def test_the_wrapped_question_gets_the_same_answer(mini_index_dir: Path) -> None:
    r = Retriever.open(mini_index_dir, Settings(local_model=False))
    plain = r.search(QUESTION)
    for wrapped in (f"Write a SQL query to answer this question: {QUESTION}",
                    f"Hi! I need help with our database. {QUESTION} Thanks!"):
        got = r.search(wrapped)
        assert (got.table_ids, got.joins, got.confidence) == (plain.table_ids, plain.joins, plain.confidence)
        assert got.question == wrapped  # the answer reports what was asked
