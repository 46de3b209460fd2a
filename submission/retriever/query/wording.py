"""The words and marks a request around a question is made of, shared by its clause and sentence cuts.

query/request.py cuts a leading or trailing wrapping at a clause mark; query/sentences.py drops whole
sentences about the request. Both read the same word lists: which words only a request uses, which speak of
a person, which ask; each list is kept here once.
"""

from __future__ import annotations

import re

from ..index.text import COMMANDS, STOPWORDS
from ..index.wordnet import bases

#: Greetings in the languages users mix with English ("Hola! ...", "Namaste sir, ..."), and their thanks
#: ("... Gracias", "Vielen Dank im Voraus").
FOREIGN_GREETINGS = frozenset("hola bonjour ciao olá merhaba namaste salut hallo hej".split())
FOREIGN_THANKS = frozenset(
    """gracias merci beaucoup danke vielen dank guten grazie mille obrigado obrigada teşekkürler tack saludos
    buenos konnichiwa arigato arigatou spasibo dziękuję bedankt""".split())
#: Words only a request around a question uses, even in a sentence of its own ("Assume PostgreSQL syntax.",
#: "Best regards, Dana").
REQUESTING = frozenset(
    """sql sqlite mysql postgres postgresql tsql mssql sqlserver mariadb bigquery redshift duckdb clickhouse trino
    snowflake databricks spark hive hiveql oracle plsql db2 teradata pandas dplyr excel dax tableau looker
    metabase powerbi notebook jupyter siri alexa cortana
    query queries database databases db schema schemas dataset datasets cte ctes subquery subqueries dataframe
    dataframes commentary thanks thank thx ty tia appreciated hi hello hey dear assistant regards sincerely
    cheers sorry sry apologies inst asap eod fyi fwd forwarded forwarding csv json xlsx idea ideas pointers thoughts
    hint hints tldr explain bot bots chatbot sqlbot querybot databot gpt chatgpt copilot
    """.split()
) | FOREIGN_GREETINGS | FOREIGN_THANKS
#: What a step of a request is done to ("Identify the relevant tables.", "Write the SQL.").
STEPS = REQUESTING | frozenset("table tables columns joins question".split())
#: Words a request around a question uses: one of them must be in a clause that is cut.
FRAMING = REQUESTING | frozenset("records tables question request task help joins asked".split())
#: The labels of prompt templates, chat turns and mails ("### Instruction:", "Input:", "Q:", "A:", "Response:",
#: "Subject:"): a label made of one of them is about the request.
LABELS = FRAMING | frozenset(
    "instruction instructions input output response answer prompt context system user human ai bot q a todo subject"
    .split())
#: Words only chat uses: with no mark to end a clause on, a leading run holding one is cut before a word that
#: asks ("hey can u tell me how many ..."), and a trailing run of CLOSING words is cut whole ("... thx lol").
CHAT = frozenset(
    """hey hi hello yo um umm uh uhh er erm hmm ok okay u ur pls plz thx thanks ty tia lol btw quick basically
    curious wondering yes yeah yep yup alright sir madam bye ugh omg hiya mhm guys anyway anyways g'day mate bro bruh
    dude""".split()) | FOREIGN_GREETINGS
CLOSING = frozenset("thx thanks thank ty tia lol pls plz please kindly cheers asap bye".split())
#: How a letter's greeting starts ("Hi Sam,", "Dear Data Team,", "Good morning all,").
GREETINGS = frozenset("hi hello hey dear good morning greetings hiya".split()) | FOREIGN_GREETINGS
SIGNING = frozenset("regards rgds br sincerely faithfully truly cheers thanks thank wishes best greetings appreciate "
                    "appreciated".split())
SIGNING_STARTS = SIGNING | {"kind", "warm", "warmest", "many", "with", "all", "yours"}
#: Words a message uses of how a question reached the user ("customer on the line asking:", "the prompt says:",
#: "INC-4821 follow-up:", "homework question"): a lead-in holding one introduces the question after it.
SAYING = frozenset(
    """says said asking asks asked phrased wrote writes note notes follow followup following reminder homework
    exercise assignment prompt standup todo re conversation discussion discussed scratch transcript memo ask repost
    reposting reposted bump bumping crosspost crossposting edit edited typo ps ref relay relayed relaying
    pasted posted solved unsolved resolved""".split())
#: Words of the user's situation rather than the data's: urgency, days, the channel and the occasion ("No
#: rush.", "URGENT!!!", "Still waiting on this one.", "This is for a board deck tomorrow morning.").
SITUATION = frozenset(
    """urgent urgently rush hurry waiting deadline tomorrow tmrw tonight today yesterday weekend monday tuesday
    wednesday thursday friday saturday sunday deck slides call sync ooo offline reply ping lmk needful doc blog
    channel thread ticket audit meeting meetings demo presentation lesson lecture quiz exam workshop disturbing
    disturb bother bothering interrupting""".split())
#: Words of the answer's form rather than its content ("Keep it short.", "No need for a chart.", "Exact figures
#: please, not estimates.").
FORMAT = frozenset("short brief concise chart charts graph graphs visualization bullet bullets estimate estimates "
                   "ballpark formatting explanation explanations extra".split())
#: The words a lead-in or an aside about the request holds one of: its own, a message's, a situation's and chat's.
MESSAGING = FRAMING | SAYING | SITUATION | FORMAT | CHAT
#: The verbs a user tells what they said to whoever asked with ("I said I'd check.").
NARRATING = frozenset("said told promised".split())
#: The words that only join the user's story to what they ask ("... before the meeting so how many").
JOINS = frozenset("so anyway anyways like basically ,".split())
#: The words after which a command's word orders nothing: a subject, a modal or a negation ("If you can't find
#: it", "I'll list"), or a noun's determiner ("the group chat"; but "the name of ..." may still be asked for).
UNORDERED = frozenset("""i you we they he she it i'll we'll you'll can can't cannot could couldn't would wouldn't will
    won't should don't doesn't didn't""".split())
DETERMINERS = frozenset("the a an my your our their his her its this that these those".split())
#: How a user says sorry ("voice to text so sorry if this comes out weird").
APOLOGIES = frozenset("sorry sry apologies".split())
#: The words a user speaks of themselves with.
FIRST_PERSON = frozenset("i i'm i've i'd i'll im me my myself".split())
#: What a user did before asking ("what I tried is below", "What I expected:").
TRIED = frozenset("tried attempted did got expected expect wrote ran see saw meant".split())
#: The verbs of finding out ("figure out", "work out", "find out"), before what the question asks.
FINDING = frozenset("find figure work".split())
#: Words after which a person's run is what they want to know ("My boss wants to know list the names").
KNOWING = frozenset("know wondering asking".split())
#: Words a request's wrapping is made of besides function, command and chat words.
WRAPPING = frozenset(
    """write generate create produce build compose translate convert turn answer answers respond reply lot much know
    like want wants wanted need needs needed wondering wonder curious ask asking appreciate advance following
    below use using based given according looking data information info table statement statements select standard
    single join code explanation comments text t note good morning afternoon evening quick simple output result
    results plain english correct proper sure team everyone folks look check run execute let lets could would will
    shall might i'm i'd i've we're let's here's it's that's manager boss colleague actually q syntax whats way
    ways easy easiest approach attached provided relevant necessary meant""".split()
)
#: How a question starts: a leading wrapping is cut only before one, so a clause of the question itself
#: ("What are the records, sorted by date?") is never taken for one.
STARTS = STOPWORDS - {"a", "an", "the", "this", "that", "these", "those"} | COMMANDS | {"name", "among"}
#: A command's third person, which states what something does ("My answer gets marked as incorrect.") where it
#: is not the first word.
STATING = frozenset({w + "s" for w in COMMANDS} | {"retrieves", "fetches"})
COMMANDING = COMMANDS | STATING | {"retrieve", "fetch"}
#: Marks a clause ends at: a wrapping is cut after one (leading) or before what follows one (trailing).
BOUNDARY = frozenset(":,.!?;-()[]{}<>|/*`\u2013\u2014\u2192")
#: Dashes a lead-in ends at, or a remark after a question's mark starts with ("quick one \u2014 how many").
DASHES = frozenset("-\u2013\u2014\u2192")
#: Marks a sentence (or a label: "User request:") ends at.
ENDS = frozenset(".!?:")
#: Words a user speaks of themselves or the assistant with: a sentence holding one that does not ask is
#: about the request ("I'm new to SQL.", "My manager wants a number.").
PERSONS = frozenset("""i i'm i'd i've i'll im idk me my myself we we're we've our us you you're your u ur
    someone anyone somebody anybody nobody""".split())
ALLOWED = STOPWORDS | FRAMING | WRAPPING | CHAT | CLOSING | COMMANDING | BOUNDARY | PERSONS
#: The persons a request speaks as or to ("I was wondering how", "can you tell me how"): "Tell me how many"
#: is how a question starts.
SPEAKING = PERSONS - {"me", "my", "myself", "us", "our", "someone", "somebody"}
WE = frozenset("we we're we've".split())
ADDRESSED = frozenset("you you're u someone anyone somebody anybody".split())
#: The assistants a request names ("hey sqlbot", "Can the bot handle this one?").
BOTS = frozenset("bot bots chatbot sqlbot querybot databot assistant gpt chatgpt copilot".split())
#: How a sentence that asks starts, after a word of LEADING ("Please list", "So how many").
QUESTION_STARTS = frozenset(
    """what which who whom whose when where why how is are was were do does did can could would will should has
    have had among name order sort include rank group state""".split()) | COMMANDING
#: The verbs a question to the assistant starts with ("can u tell me ...", "would you ...").
MODALS = frozenset("can could would will should".split())
#: The words that ask or say what the question means anywhere in a sentence ("..., and state the code", "I mean
#: those born there."): a sentence with one is not told apart from the question.
MEANING = frozenset("mean meant".split())
ORDERS = COMMANDING | frozenset("among name order sort include rank group state".split()) | MEANING
PREPOSITIONS = frozenset("in for under of from at on by with during since after before between".split())
#: How a remark after the question that goes on with it starts ("Only the active ones.", "Also their ages.",
#: "Per channel.", "By country.").
GOING_ON = frozenset("also and plus only except excluding including without with but or per each every sorted ordered "
                     "grouped".split()) | PREPOSITIONS
#: How a sentence that asks on from the one before starts ("Work out the average pay. Also give his name.").
JOINING = frozenset("also and plus then additionally besides".split())
#: How a sentence that goes on with the one before starts, besides GOING_ON ("That is to say, ...", "(sex is M)",
#: "Latest first.").
CONTINUING = frozenset("""that ie eg ( [ namely meaning latest newest oldest earliest ascending descending alphabetical
    alphabetically highest lowest largest smallest biggest most least top bottom""".split())
#: Words a sentence after the question refers to its things with ("Their sex is F.").
REFERRING = frozenset("their they them those these its his her he she".split())
#: What follows a verb that orders something done to the data ("Convert the duration", "Check all the
#: invoices", "Work out the profit", "Break the result down").
OBJECTS = frozenset("the all each every out down up its their his her".split())
LEADING = frozenset("please so ok okay and but now then also just kindly".split())
CLAUSE_MARKS = frozenset(",:;-\u2013\u2014")
#: The words a sentence that asks starts with, as a chat run is cut before one.
WH_WORDS = frozenset("what which who whom whose when where why how".split())
WH = WH_WORDS | COMMANDING
#: Units of the time a user has ("in 20 min", "by 3 pm", "within 2 days"): a number before one names nothing of
#: the data.
TIME_UNITS = frozenset("min mins minute minutes hr hrs hour hours sec secs seconds am pm day days week weeks".split())
#: The parts a course or a document is numbered by ("Week 3, Exercise 2", "Module 4 quiz, question 7", "(Week 5,
#: Lab 1)"): a number after one, and the part's word before its number, name nothing of the data.
PARTS = frozenset("week unit module lab lesson chapter section part exercise ex quiz question task problem assignment "
                  "step page slide lecture hw homework".split())
#: Abbreviations a full stop does not end a sentence after ("Mrs. Joye Homenick").
TITLES = frozenset("mr mrs ms dr prof st jr sr mt ft no vs etc".split())
QUOTES = frozenset("\"'\u201c\u201d")
QUOTE = re.compile(r'"([^"]+)"|\u201c([^\u201c\u201d]+)\u201d')
#: English function words, which WordNet does not list: a sentence with them is English ("Among Warner Bros.").
FUNCTION_WORDS = (STOPWORDS | PREPOSITIONS | QUESTION_STARTS | GOING_ON | CONTINUING | REFERRING | LEADING | WH_WORDS
                  | frozenset("among amongst via within upon across against beyond through throughout toward towards "
                              "versus whether".split()))
#: The days of the week, which date a message ("Action items (Tue standup):", "Due Friday") more often than
#: they name the data.
DAYS = frozenset("""monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat
    sun""".split())
#: A time of day ("14:02", "9:30"), which is the message's, not the data's.
_CLOCK = re.compile(r"\d{1,2}:\d{2}\b")
TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?|[^\w\s]")


def tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0).lower()) for m in TOKEN.finditer(text)]


def asks(words: list[str]) -> bool:
    """A sentence asks where it ends with a question mark, starts as a question does (or with a preposition
    before a word that asks: "At what date ..."), or a word that asks
    follows a clause mark in it ("For each, tell me the date", "HiveQL version needed — Return the number")."""
    marks = [w for w in words if w not in QUOTES]  # '"How many ...?"'
    first = [w for w in marks if w not in LEADING][:2]
    asked = first[:1] == [next_word(words)] and len(first) == 2 and first[0] in PREPOSITIONS and first[1] in WH_WORDS
    # "Will double-check before it runs.": a modal that no subject follows states
    rest = [w for w in marks if w not in LEADING][:2]
    stated = len(rest) == 2 and rest[0] in MODALS and rest[1] not in STOPWORDS and rest[1] not in PERSONS
    # "what I tried is below", "What I've tried:" (not "what i meant to ask was which ...")
    if marks[-1:] != ["?"] and tried(marks, 0) and not any(a in ("is", "was") and b in WH
                                                            for a, b in zip(marks[3:], marks[4:], strict=False)):
        return False
    # "I need to know list the names ...": what the user wants to know (not "Let me know what you find.", "I don't
    # want to know how ...")
    knowing = any(w in KNOWING and words[i - 1:i] == ["to"] and FIRST_PERSON.intersection(words[:i])
                  and next_word(words[i + 1:]) in WH and words[i + 2:i + 3] != ["to"] for i, w in enumerate(words))
    if knowing and not negated(words):
        return True
    # "The question is list the names ...": what the request is, and what it asks
    said = any(w in FRAMING and words[i + 1:i + 2] in (["is"], ["was"]) and next_word(words[i + 2:]) in WH
               for i, w in enumerate(words))
    return (bool(marks) and marks[-1] == "?" or next_word(words) in QUESTION_STARTS and not stated or asked or said
            or any(w in CLAUSE_MARKS and next_word(words[i + 1:]) in WH for i, w in enumerate(words)))


def tried(words: list[str], i: int) -> bool:
    """Whether the word at `i` starts what the user did rather than a question ("what I tried", "what I expect")."""
    return (words[i:i + 1] != [] and words[i] in WH_WORDS and words[i + 1:i + 2] in (["i"], ["we"], ["i've"], ["we've"])
            and words[i + 2:i + 3] != [] and words[i + 2] in TRIED)


def negated(words: list[str]) -> bool:
    """Whether a run says no ("I don't really know how ...", "never")."""
    return any(w in ("not", "never") or w.endswith("n't") for w in words)


def next_word(words: list[str]) -> str:
    """The first word past the leading ones, a word that asks without its contraction ("What's" as "what")."""
    word = next((w for w in words if w not in LEADING and w not in QUOTES), "")
    base = word.split("'")[0].split("\u2019")[0]
    return base if base in WH_WORDS else word


def is_content(word: str) -> bool:
    """A word of the question's own: not a wrapping's, a person's or a mark."""
    return word not in ALLOWED and word[0].isalnum()


def named(text: str, toks: list[tuple[int, int, str]]) -> bool:
    """Whether a sentence names something past its first word (a capitalised word but a day of the week, a
    number standing alone and not of minutes, hours or days nor a time of day, a quote): then it may hold what
    the question is about ("Only those in France.", "For 2014:"; not "client call in 20 min", "within 10
    working days")."""
    words = [t for t in toks if t[2][0].isalnum()]
    # a sentence in capitals shouts, its capitals name nothing ("CLIENT ON THE LINE")
    shouted = any(t[2] in STOPWORDS and len(t[2]) > 1 for t in words) and all(
        not text[a:b].isalpha() or text[a:b].isupper() for a, b, _ in words)
    return (any(t[2] in QUOTES for t in toks)
            or any(t[2] not in ALLOWED and t[2] not in MESSAGING and t[2] not in DAYS
                   and (text[t[0]].isupper() and len(t[2]) > 1 and not shouted and not _numbering(words, i)
                        or t[2].isdigit() and not text[t[0] - 1].isalnum() and text[t[0] - 1] not in "-#"
                        and not TIME_UNITS.intersection(w for _, _, w in words[i + 1:i + 3])
                        and not clock(text, t[0]) and not _numbered(words, i))
                   for i, t in enumerate(words) if i > 0))


def _numbering(words: list[tuple[int, int, str]], i: int) -> bool:
    """Whether the word at `i` is the part of a course or a document a number follows ("Week 3", "Lab 1")."""
    return words[i][2] in PARTS and i + 1 < len(words) and words[i + 1][2].isdigit()


def _numbered(words: list[tuple[int, int, str]], i: int) -> bool:
    """Whether the number at `i` numbers a part of a course or a document ("exercise 2.3", "question 7")."""
    j = i - 1
    while j >= 0 and words[j][2].isdigit():
        j -= 1
    return j >= 0 and words[j][2] in PARTS


def clock(text: str, start: int) -> bool:
    """Whether the number at `start` is an hour or the minutes of a time of day ("14:02")."""
    return bool(_CLOCK.match(text, start)) or (start >= 2 and text[start - 1] == ":" and text[start - 2].isdigit())


def foreign(text: str, toks: list[tuple[int, int, str]], lexicon: frozenset[str], naming: bool) -> bool:
    """Whether a run is in a language the dictionary (`lexicon`) is not of ("Perdón por molestar,", "Tanaka
    desu.", "jaldi chahiye yaar", "Pozdrawiam, Tomasz"): no number, quote or word in capitals ("(in USD)"), and
    of its words no request uses at most a third are the dictionary's or English function words of two letters
    or more, or none but its names where it names something (`naming`, as `named` says: "Customer Ursola
    Purdy.", "In Abadia," are English). Without a dictionary nothing is."""
    if not lexicon:
        return False
    own = [t for t in toks if t[2][0].isalnum() and (t[2] not in ALLOWED or (t[2] in STOPWORDS and len(t[2]) > 1))]
    if (not own or any(c.isdigit() for *_, w in own for c in w) or any(w in QUOTES for *_, w in toks)
            or any(b - a > 1 and text[a:b].isupper() for a, b, _ in toks)):
        return False
    if naming:  # its names aside, no word is the dictionary's ("Jazak Allah khair")
        words = [w for a, _, w in own if a == toks[0][0] or not text[a].isupper()]
        return bool(words) and not any(_known(w, lexicon) for w in words)
    known = sum(_known(w, lexicon) for *_, w in own)
    return 3 * known <= len(own)


def _known(word: str, lexicon: frozenset[str]) -> bool:
    """A word of the dictionary or an inflection of one; a contraction by its first part ("that's", "can't";
    not "g'day")."""
    head = re.split("['\u2019]", word)[0]
    return (word in FUNCTION_WORDS or any(b in lexicon for b in (word, *bases(word)))
            or head != word and len(head) > 1 and (head in FUNCTION_WORDS or head in lexicon))
