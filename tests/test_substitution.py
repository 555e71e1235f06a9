"""A claim that repeats a line of its span with one name changed, or a negation dropped (hand-made cases)."""

from __future__ import annotations

import pytest
from evalgate_lib.judging.prose_support import judge_prose
from evalgate_lib.judging.substitution import swapped_name

from evalgate_lib.judging.sentence_scorers import ScoringContext

SCIM = (
    "Setting up SSO with SAML\nSCIM provisioning (Enterprise)\n"
    "Open Admin console > Security > Provisioning and select Generate SCIM token."
)


@pytest.mark.parametrize(
    ("claim", "span", "expected"),
    [
        # one name swapped in the span's own sentence; the heading's "SSO" does not hold it
        ("Open **Admin console > Security > Provisioning** and select **Generate SSO token**.", SCIM, ("SSO", "SCIM")),
        ("1. Right-click a file or folder and select **Edit**.", "Right-click a file or folder and select Share.",
         ("Edit", "Share")),
        # a negation dropped between matching words (and one added)
        ("When a member is deactivated, their files are moved to the trash.",
         "When a member is deactivated, their files are not moved to the trash.", ("", "not")),
        ("When a member is deactivated, their files are not moved to the trash.",
         "When a member is deactivated, their files are moved to the trash.", ("not", "")),
        # not swaps: ordinary words reworded, a contraction, the name stated in another sentence of the span,
        # an example's variable for the documented object, a short fragment
        ("Right-click a file or folder and choose Share.", "Right-click a file or folder and select Share.", None),
        ("When a member is deactivated, their files aren't moved to the trash.",
         "When a member is deactivated, their files are not moved to the trash.", None),
        ("The app can use up to 50 GB of phone storage for offline files.",
         "By default, the app uses up to 5 GB of phone storage for offline files.\nYou can raise this to 50 GB.", None),
        ("You can manually set `r.encoding` or use the raw `r.content`.",
         "You can manually set the Response.encoding property, or use the raw Response.content.", None),
        ("Select Share.", "Select Edit.", None),
    ],
)  # fmt: skip
def test_swapped_name(claim: str, span: str, expected: tuple[str, str] | None) -> None:
    assert swapped_name(claim, span) == expected


def test_a_swapped_name_is_a_decided_unsupported_claim_with_its_reason() -> None:
    body = "## SCIM provisioning\n\nOpen Admin console > Security > Provisioning and select Generate SCIM token."
    context = ScoringContext(question="How do I set up SCIM?", passages=(("Setting up SSO with SAML", body),))
    verdict = judge_prose("Open Admin console > Security > Provisioning and select Generate SSO token.", context)
    assert verdict.supported is False and verdict.undecided is False
    assert "says 'SCIM' where the claim says 'SSO'" in verdict.reason
    faithful = judge_prose("Open Admin console > Security > Provisioning and select Generate SCIM token.", context)
    assert faithful.supported is True
