"""An undecided verdict leans supported only when the rest of its answer vouches for it (judging/answer_lean.py)."""

from __future__ import annotations

from evalgate_lib.judging.answer_lean import TRACK_RECORD, degenerate, lean_by_answer

import evalgate_lib as eg
from evalgate_lib.judging.rows import SentenceVerdict


def verdict(
    text: str, supported: bool | None, undecided: bool = False, reason: str = "a claim: held"
) -> SentenceVerdict:
    return SentenceVerdict(
        text, (), (), None if supported is None else 1.0, supported, reason=reason, undecided=undecided
    )


HELD_1 = verdict("Starter includes three seats in its flat monthly price.", True)
HELD_2 = verdict("Extra seats can be added up to ten in total.", True)
NEAR_MISS = verdict("Every seat gets its own shared drive folder.", False, True, "a claim: a near miss: 3/7 words")


def test_two_claims_in_own_words_let_one_undecided_lean_supported() -> None:
    assert TRACK_RECORD == 2
    answer = " ".join(s.text for s in (HELD_1, HELD_2, NEAR_MISS))
    out = lean_by_answer((HELD_1, HELD_2, NEAR_MISS), answer)
    assert out[:2] == (HELD_1, HELD_2)
    leaned = out[2]
    assert leaned.supported is True and leaned.undecided is True  # still undecided: still for the review queue
    assert leaned.reason.startswith("a claim: a near miss: 3/7 words; leans supported: 2 other claims")


def test_the_lean_stays_unsupported_when_the_answer_does_not_vouch() -> None:
    one = (HELD_1, NEAR_MISS)  # a track record of one claim is not enough
    assert lean_by_answer(one, " ".join(s.text for s in one)) == one
    two_leaning = (HELD_1, HELD_2, NEAR_MISS, verdict("Seats renew on the first day.", False, True))
    three_leaning = (*two_leaning, verdict("Seats never expire at all.", False, True))
    # two leaning against two held still leans supported; three against two does not
    assert all(s.supported for s in lean_by_answer(two_leaning, " ".join(s.text for s in two_leaning)))
    assert lean_by_answer(three_leaning, " ".join(s.text for s in three_leaning)) == three_leaning
    decided = (HELD_1, HELD_2, NEAR_MISS, verdict("Seats cost nothing.", False))  # one decided unsupported
    assert lean_by_answer(decided, " ".join(s.text for s in decided)) == decided


def test_copies_code_lines_and_fragments_are_no_track_record() -> None:
    copies = (
        verdict("Starter includes 3 seats.", True, reason="copied verbatim from the context"),
        verdict("$ pip install nimbus", True, reason="a command or code line: every option it uses occurs"),
        verdict("- 3 seats", True, reason="an answer fragment: a span holds 2/2 words"),
        NEAR_MISS,
    )
    assert lean_by_answer(copies, " ".join(s.text for s in copies)) == copies


def test_a_looping_or_cut_off_answer_gets_no_benefit_of_the_doubt() -> None:
    again = verdict("Starter includes three seats in its flat monthly price, always.", True)
    looping = (HELD_1, again, NEAR_MISS)
    text = " ".join(s.text for s in looping)
    assert degenerate(looping, text) == "a sentence repeats another"  # 8 of HELD_1's 8 words are in `again`
    assert lean_by_answer(looping, text) == looping
    whole = (HELD_1, HELD_2, NEAR_MISS)
    cut = " ".join(s.text for s in whole)[:-1] + " and the"
    assert degenerate(whole, cut) == "the answer is cut off mid-sentence"
    assert lean_by_answer(whole, cut) == whole
    assert degenerate(whole, " ".join(s.text for s in whole)) is None


def test_judge_answer_applies_the_lean_and_the_review_queue_still_holds_the_answer() -> None:
    passages = [
        (
            "Plans",
            "The Starter plan includes 3 seats in its flat price. Starter workspaces can add seats up to 10 in total. "
            "Files in the trash are kept for 30 days before they are deleted.",
        )
    ]
    answer = (
        "Starter includes 3 seats in the flat price. A Starter workspace can add up to 10 seats. "
        "Deleted files wait in the recycle bin for 30 days and then disappear forever."
    )
    judged = eg.judge_answer(
        question="How many seats does the Starter plan include?", answer=answer, passages=passages, accept=["3 seats"]
    )
    first, second, near_miss = judged.sentences
    assert first.supported is True and second.supported is True and not first.undecided and not second.undecided
    # 4 of the 9 counted words (0.44) in one span: a near miss, undecided; two claims held beside it
    assert near_miss.undecided is True and near_miss.supported is True
    assert "holds 4/9 words (0.44)" in near_miss.reason and "; leans supported: 2 other claims" in near_miss.reason
    assert judged.unsupported_sentences == [] and not judged.hallucination
    assert judged.review and judged.flags.reasons["review"] == (
        "1 sentence verdict(s) undecided (0 leaning unsupported), e.g. "
        "'Deleted files wait in the recycle bin for 30 days and then disappear forever.'",
    )
    # without the two held claims the same sentence leans unsupported, as its kind does
    alone = eg.judge_answer(
        question="How many seats does the Starter plan include?",
        answer="Deleted files wait in the recycle bin for 30 days and then disappear forever.",
        passages=passages,
        accept=["3 seats"],
    )
    assert alone.sentences[0].undecided and alone.sentences[0].supported is False
