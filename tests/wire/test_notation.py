"""The text notation: format and parse are inverses on every export (Hypothesis), and a text
that is not the notation is refused with the line at fault."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules import DEALS, DECK, RULES, ResultKind, Source
from server.wire import messages as w
from server.wire.export import ExportedAction, ExportedHand, ExportedMatch
from server.wire.notation import EXAMPLE, NotationError, format_match, parse_match

CARDS = [c.code for c in DECK]
card = st.sampled_from(CARDS)
cards = st.lists(card, max_size=12)
seat = st.integers(0, 1)
maybe_seat = st.none() | seat
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
stamp = st.sampled_from(["2026-11-29T15:00:00Z", "2027-01-01T00:00:00Z"])


@st.composite
def actions(draw: st.DrawFn) -> ExportedAction:
    kind = draw(st.sampled_from(["take", "pass", "stock", "pile", "discard", "knock"]))
    s = draw(seat)
    drawn = draw(st.none() | card)
    match kind:
        case "take":
            return ExportedAction(s, w.TakeUpcard(), drawn)
        case "pass":
            return ExportedAction(s, w.Pass(), None)
        case "stock":  # its card only when the export may show it
            return ExportedAction(s, w.Draw(Source.STOCK), drawn)
        case "pile":  # always face up
            return ExportedAction(s, w.Draw(Source.DISCARD), draw(card))
        case "discard":
            return ExportedAction(s, w.Discard(draw(card)), None)
        case _:
            return ExportedAction(s, w.Knock(draw(card)), None)


melds = st.lists(st.lists(card, min_size=3, max_size=5), max_size=3)
results = st.builds(
    w.HandResult,
    kind=st.sampled_from(list(ResultKind)),
    winner=maybe_seat,
    points=st.integers(0, 200),
    knocker=maybe_seat,
    deadwood=st.lists(st.integers(0, 98), min_size=2, max_size=2),
    hands=st.lists(cards, min_size=2, max_size=2),
    melds=st.lists(melds, min_size=2, max_size=2),
    unmatched=st.lists(cards, min_size=2, max_size=2),
    layoffs=st.lists(st.builds(w.Layoff, card, st.integers(0, 3)), max_size=3),
    breakdown=text,
)
hands = st.builds(
    ExportedHand,
    number=st.integers(1, 40),
    starter=seat,
    seed=st.none() | st.text("0123456789abcdef", min_size=1, max_size=32),
    deal_commitment=st.none() | st.just("ab" * 32),
    hands=st.lists(st.none() | cards, min_size=2, max_size=2),
    upcard=card,
    stock=st.none() | cards,
    actions=st.lists(actions(), max_size=8),
    result=st.none() | results,
)
totals = st.builds(w.SeatTotal, *(st.integers(0, 500) for _ in range(4)))
outcomes = st.builds(
    w.Outcome,
    winner=seat,
    reason=st.sampled_from(["target", "resign", "timeout", "abandoned"]),
    totals=st.lists(totals, min_size=2, max_size=2),
)
matches = st.builds(
    ExportedMatch,
    match_id=st.text("abcXYZ_-019", min_size=1, max_size=16),
    status=st.sampled_from(["waiting", "active", "finished"]),
    seat=seat,
    rules=st.sampled_from(sorted(RULES)),
    deal=st.sampled_from(sorted(DEALS)),
    seed=st.none() | text,
    first_starter=seat,
    players=st.tuples(st.none() | text, st.none() | text, st.sampled_from(["human", "computer"])).map(
        lambda t: [w.SeatPlayer(0, t[0], "human"), w.SeatPlayer(1, t[1], t[2])]
    ),
    created_at=stamp,
    updated_at=stamp,
    scores=st.lists(st.integers(0, 500), min_size=2, max_size=2),
    outcome=st.none() | outcomes,
    hands=st.lists(hands, max_size=3),
)


@settings(max_examples=100, deadline=None)
@given(matches)
def test_format_and_parse_are_inverses(match: ExportedMatch) -> None:
    written = format_match(match)
    assert parse_match(written) == match
    assert format_match(parse_match(written)) == written


def test_comments_and_blank_lines_are_ignored_and_crlf_is_read() -> None:
    written = format_match(EXAMPLE)
    noisy = "; exported by hand\n" + written.replace("\n", "\r\n").replace("[hand ", "\r\n\r\n[hand ")
    assert parse_match(noisy) == EXAMPLE


@pytest.mark.parametrize(
    ("change", "line", "words"),
    [
        (lambda t: t.replace('[game "Gin Rummy"]', '[game "Chess"]'), 1, "must begin"),
        (lambda t: t.replace("1. 0 pass", "1. 0 pass 7h"), 22, "pass names no card"),
        (lambda t: t.replace("1. 0 pass", "1. 2 pass"), 22, "neither a tag"),
        (lambda t: t.replace("2. 1 pass", "3. 1 pass"), 23, "expected 2"),
        (lambda t: t.replace("4. 0 knock Kh", "4. 0 knock"), 25, "must name its card"),
        (lambda t: t.replace('[upcard "Kd"]', '[upcard "Kd"]\n[upcard "Kd"]'), 21, "twice"),
        (lambda t: t.replace('[scores "0 28"]', '[scores "0 28"]\n[colour "red"]'), 15, "unknown tag"),
        (lambda t: t.replace('[scores "0 28"]', '[scores "0 +28"]'), 14, "integers"),
        (
            lambda t: t.replace("4. 0 knock Kh", '4. 0 knock Kh\n[upcard "Kd"]'),
            26,
            "before the hand's actions",
        ),
        (lambda t: t.replace('[points "28"]', '[points "28"]\n5. 1 pass'), 30, "after the hand's result"),
        (lambda t: t.replace('[upcard "Kd"]', '[upcard "Kx"]'), 0, "wrong type"),
        (lambda t: t.replace('[rules "house"]', '[rules "poker"]'), 0, "wrong type"),
        (lambda t: t.replace('[upcard "Kd"]\n', ""), 16, "missing tag 'upcard'"),
    ],
)
def test_text_that_is_not_the_notation_is_refused_with_its_line(change, line, words) -> None:
    with pytest.raises(NotationError) as info:
        parse_match(change(format_match(EXAMPLE)))
    assert words in str(info.value)
    assert info.value.line == line
