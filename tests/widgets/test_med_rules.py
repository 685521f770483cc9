"""What the MED panel says of a case, decided on plain records: true to `defended_at`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from pixops.schema import MedCase
from pixops.widgets._med_rules import case_heading, case_outcome, missed_deadline, why_closed

NOW = datetime(2026, 2, 20, 12, tzinfo=UTC)
DEADLINE = datetime(2026, 2, 19, 4, 9, tzinfo=UTC)  # 19/02/2026 01:09 in São Paulo


def case(**fields: object) -> MedCase:
    base: dict[str, object] = {
        "id": "med_abc",
        "transaction_id": "PIXINE22896431202601010338c5WPLwFSeVb",
        "status": "ACKNOWLEDGED",
        "amount": 57_000,
        "blocked_amount": 57_000,
        "defense_deadline": DEADLINE.isoformat(),
        "defended_at": None,
        "analysis_result": None,
        "closed_at": None,
    }
    return MedCase.model_validate({**base, **fields})


def test_a_case_never_defended_past_its_deadline_says_so_and_what_comes_next() -> None:
    said = case_outcome(case(), NOW)
    assert "has your defense" not in said.text
    assert "no defense was sent" in said.text
    assert "the deadline passed on 19/02/2026 01:09 (São Paulo time)" in said.text
    assert "central bank's analysis without one" in said.text
    assert "if it agrees with the payer, the disputed R$ 5,70 is refunded" in said.text
    assert "the R$ 5,70 blocked meanwhile is released to you" in said.text
    assert said.tone == "warn"
    heading = case_heading(case(), NOW)
    assert heading.text.startswith("No defense was sent: the deadline passed on 19/02/2026")


def test_an_open_case_whose_deadline_just_passed_reads_the_same() -> None:
    """The service moves it to ACKNOWLEDGED when its timer runs; until then it is OPEN."""
    said = case_outcome(case(status="OPEN"), NOW)
    assert "no defense was sent, and the deadline passed on 19/02/2026" in said.text
    assert missed_deadline(case(status="OPEN"), NOW) == DEADLINE
    assert "no defense was sent and its deadline passed" in str(why_closed(case(), NOW))


def test_a_defended_case_says_when_the_defense_was_sent() -> None:
    defended = case(defended_at="2026-02-15T13:00:00.000Z")
    said = case_outcome(defended, NOW)
    assert said.text.startswith(
        "Case med_abc has your defense, sent on 15/02/2026 10:00 (São Paulo time): no decision"
    )
    assert missed_deadline(defended, NOW) is None
    assert case_heading(defended, NOW).text == (
        "Defense sent: awaiting the central bank's decision."
    )


def test_an_open_case_in_time_still_takes_the_defense() -> None:
    early = NOW - timedelta(days=3)
    said = case_outcome(case(status="OPEN"), early)
    assert "still takes your defense until 19/02/2026 01:09 (São Paulo time)" in said.text
    assert why_closed(case(status="OPEN"), early) is None
    assert missed_deadline(case(status="OPEN"), early) is None


def test_decided_and_withdrawn_cases() -> None:
    agreed = case(status="CLOSED", analysis_result="AGREED", closed_at="2026-02-21T00:00:00Z")
    assert case_outcome(agreed, NOW).text == (
        "Case med_abc closed: Agreed, the payer was refunded."
    )
    kept = case(status="CLOSED", analysis_result="DISAGREED")
    assert "the money stays with you" in case_outcome(kept, NOW).text
    withdrawn = case(status="CANCELLED", closed_at="2026-02-16T15:00:00.000Z")
    said = case_outcome(withdrawn, NOW)
    assert said.text == (
        "Case med_abc was withdrawn by the payer's bank on 16/02/2026 12:00 (São Paulo"
        " time): the blocked money is released to you and nothing is refunded."
    )
    assert missed_deadline(withdrawn, NOW) is None
    assert case_heading(withdrawn, NOW).text.startswith("Withdrawn by the payer's bank")


@given(
    status=st.sampled_from(["OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED"]),
    result=st.sampled_from([None, "AGREED", "DISAGREED"]),
    hours=st.integers(min_value=-400, max_value=400),
    defended=st.booleans(),
)
def test_only_a_defended_case_is_said_to_have_a_defense(
    status: str, result: str | None, hours: int, defended: bool
) -> None:
    record = case(
        status=status,
        analysis_result=result,
        defense_deadline=(NOW + timedelta(hours=hours)).isoformat(),
        defended_at="2026-02-10T10:00:00.000Z" if defended else None,
    )
    said = case_outcome(record, NOW).text + case_heading(record, NOW).text
    if not defended:
        assert "has your defense" not in said
        assert "Defense sent" not in said
    if "no defense was sent" in said:
        assert not defended
        assert hours <= 0
        assert result is None
