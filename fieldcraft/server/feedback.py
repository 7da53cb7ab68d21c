"""The post-game questionnaire: what a seated person thought of a finished game.

Designers learn from bots how a ruleset *plays*; only people can say whether it was fun, clear,
the right length and close. A table asks when its host turned ``feedback`` on at creation or
when it was made from a playtest (:mod:`fieldcraft.server.playtest`), and only once it is
finished: asked during play, the answers would describe half a game. Each seated person (their
seat token is the proof) answers once; a second answer, like every other refusal, stores
nothing, so a report never counts one person twice.

The answers are checked here against a closed list of questions (:data:`QUESTIONS`) so that
what is stored can be pooled without cleaning: scales are whole numbers 1-5, the length one of
three words, the confusing rules ids of the game's own rules-page sections and ruleset keys
(:func:`rule_choices`), the comment a bounded piece of plain text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from fieldcraft.core import text
from fieldcraft.core.registry import default_ruleset, game_spec
from fieldcraft.core.ruleset import FIXED_KEYS
from fieldcraft.server import catalogue, i18n, store
from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError
from fieldcraft.server.models import feedback
from fieldcraft.server.protocol import invisible_character

SCALES = ("fun", "clarity", "close")
"""The 1-5 questions: how fun, how clear the rules were, how close the game felt."""
LENGTHS = ("short", "right", "long")
"""The length question's answers: too short, about right, too long."""
COMMENT_MAX = 500
"""Characters of free text: enough for a sentence or three about a rule, not an essay."""
CONFUSING_MAX = 5
"""Rules one answer may name as confusing: more would say "all of it", which ranks nothing."""
QUESTIONS = (*SCALES, "length", "confusing", "comment")
REQUIRED = (*SCALES, "length")
"""A questionnaire without these is not an answer; the confusing rules and the comment may be
left empty (most people find nothing confusing and have nothing to add)."""

_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def asks(settings: dict[str, Any]) -> bool:
    """Whether a table with these settings asks its players the questionnaire."""
    return settings.get("feedback") is True


@cache
def _sections(game: str, lang: str) -> tuple[str, ...]:
    source = catalogue.rules_page(game_spec(game), lang)
    return tuple(_SECTION.findall(source)) if source else ()


def rule_choices(game: str, lang: str = text.DEFAULT) -> list[dict[str, str]]:
    """The rules a person can say confused them: each ``##`` section of the game's rules page
    (``section:<n>``, from 1, labelled in ``lang`` when that page has the same sections as the
    English one, which the ids are counted on) and each changeable ruleset key (``key:<name>``,
    labelled in ``lang`` by :func:`rule_label`). Ids, not labels, are stored, so answers
    given in three languages pool in one report."""
    english = _sections(game, text.DEFAULT)
    local = _sections(game, lang)
    labels = local if len(local) == len(english) else english
    out = [{"id": f"section:{i}", "label": label} for i, label in enumerate(labels, 1)]
    out += [{"id": f"key:{key}", "label": rule_label(key, lang)} for key in default_ruleset(game)
            if key not in FIXED_KEYS]
    return out


@cache
def rule_label(key: str, lang: str = text.DEFAULT) -> str:
    """A ruleset key in words a player reads (``feedback.rule.<key>`` of the page catalogue,
    English when ``lang`` lacks it): a person asked which rule confused them does not know
    ``points_to_win``. A key with no words at all shows as itself, so it stays pickable."""
    return i18n.catalogue(lang).get(f"feedback.rule.{key}", key)


def _bad(message: str) -> TableError:
    return TableError(E.FEEDBACK_BAD_ANSWER, message)


def check_answers(raw: Any, game: str) -> dict[str, Any]:
    """``raw`` checked and normalised (comment stripped, confusing ids deduplicated in order);
    :data:`~fieldcraft.server.errors.FEEDBACK_BAD_ANSWER` naming the first fault otherwise."""
    if not isinstance(raw, dict):
        raise _bad("'answers' must be an object of the questionnaire's answers")
    unknown = sorted(set(raw) - set(QUESTIONS))
    if unknown:
        raise _bad(f"unknown question(s) {', '.join(repr(k)[:40] for k in unknown[:5])}; "
                   f"the questions are {', '.join(QUESTIONS)}")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise _bad(f"missing answer(s): {', '.join(missing)}")
    out: dict[str, Any] = {}
    for key in SCALES:
        value = raw[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            raise _bad(f"'{key}' must be a whole number 1-5")
        out[key] = value
    if raw["length"] not in LENGTHS:
        raise _bad(f"'length' must be one of {', '.join(LENGTHS)}")
    out["length"] = raw["length"]
    confusing = raw.get("confusing", [])
    if not isinstance(confusing, list) or not all(isinstance(c, str) for c in confusing):
        raise _bad("'confusing' must be a list of rule ids")
    known = {c["id"] for c in rule_choices(game)}
    picked = list(dict.fromkeys(confusing))
    strangers = [c for c in picked if c not in known]
    if strangers:
        raise _bad(f"{strangers[0][:60]!r} is not one of this game's rules "
                   "(GET the questionnaire for the ids)")
    if len(picked) > CONFUSING_MAX:
        raise _bad(f"name at most {CONFUSING_MAX} confusing rules")
    out["confusing"] = picked
    comment = raw.get("comment", "")
    if comment is None:
        comment = ""
    if not isinstance(comment, str):
        raise _bad("'comment' must be text")
    comment = comment.strip()
    if len(comment) > COMMENT_MAX:
        raise _bad(f"'comment' is at most {COMMENT_MAX} characters, this one has "
                   f"{len(comment)}")
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in comment):
        raise _bad("'comment' cannot hold control characters other than line breaks")
    hidden = invisible_character(comment)
    if hidden is not None:
        raise _bad(f"'comment' cannot hold invisible formatting characters ({hidden})")
    out["comment"] = comment
    return out


def questionnaire(game: str, lang: str) -> dict[str, Any]:
    """What the page needs to draw the form (the words themselves are in the page's
    catalogue: ``feedback.*``)."""
    return {"scales": list(SCALES), "lengths": list(LENGTHS),
            "confusing": rule_choices(game, lang), "confusing_max": CONFUSING_MAX,
            "comment_max": COMMENT_MAX}


# -- storage ----------------------------------------------------------------------------------
@dataclass
class Answer:
    table_id: str
    seat: int
    answers: dict[str, Any]
    lang: str | None
    created_at: datetime


def job_add(table_id: str, seat: int, answers: dict[str, Any], lang: str | None
            ) -> store.Job:
    """Store one seat's answer unless it has one; returns whether it was stored. The writer
    runs one job at a time, so the look and the insert cannot be split by another answer (and
    the primary key would refuse it anyway)."""
    def run(conn: Connection) -> bool:
        there = conn.execute(sa.select(feedback.c.seat).where(
            feedback.c.table_id == table_id, feedback.c.seat == seat)).first()
        if there is not None:
            return False
        conn.execute(feedback.insert().values(
            table_id=table_id, seat=seat, answers=json.dumps(answers, ensure_ascii=False),
            lang=lang, created_at=store.now()))
        return True
    return run


def read(engine: Engine, table_ids: list[str] | None = None) -> list[Answer]:
    """The answers of these tables (``None``: every table), oldest first."""
    query = feedback.select().order_by(feedback.c.created_at, feedback.c.table_id,
                                       feedback.c.seat)
    if table_ids is not None:
        if not table_ids:
            return []
        query = query.where(feedback.c.table_id.in_(table_ids))
    with engine.connect() as conn:
        return [Answer(r.table_id, r.seat, json.loads(r.answers), r.lang, r.created_at)
                for r in conn.execute(query)]


def count(engine: Engine, table_id: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(feedback)
                                .where(feedback.c.table_id == table_id)).scalar() or 0)


def seat_of(token: Any, seats: Any) -> int:
    """The seat ``token`` holds at a table (``seats``: its :class:`~.seats.Seats`):
    ``auth.spectator`` without a token (people watching were not at the table),
    ``auth.bad_token`` for one that holds no seat there."""
    if token is None or token == "":
        raise TableError(E.SPECTATOR, "the questionnaire is for the people who played; send "
                         "your seat's 'token'")
    if not isinstance(token, str):
        raise TableError(E.BAD_TOKEN, "'token' must be a seat token")
    seat = seats.holding(token)
    if seat is None:
        raise TableError(E.BAD_TOKEN, "this token holds no seat at this table")
    return int(seat)
