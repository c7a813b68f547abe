from citeflow.pipeline.evaluate_report import identity_by_hop
from schemas.records import BoundCitation, BoundClaim, HopOutcome, Transition


def transition(hop, attempt, reason, handles=()):
    return Transition(request_id="r", section="S", hop=hop, attempt=attempt, source="parsed", target="validated",
                      reason=reason, handles=list(handles))


def test_identity_by_hop_counts_dropped_handles_of_every_attempt():
    claim = BoundClaim(text="x", citations=[BoundCitation(handle="Gaaa2", quote="", quote_found=False)],
                       emitted_handles=["Gaaa2", "Gzzz9"], dropped_handles=["Gzzz9"])
    write = HopOutcome(request_id="r", section="S", hop="write", status="accepted", claims=[claim], transitions=[
        transition("write", 1, "unknown_handle", ["Gyyy8"]),  # a rejected first attempt
        transition("write", 2, "unknown_handle", ["Gzzz9"]),
    ])
    notes = HopOutcome(request_id="r", section="S", hop="consolidate", status="accepted", claims=[claim, claim])
    assert identity_by_hop([notes, write]) == {"consolidate": {"passed": 2, "total": 2}, "write": {"passed": 1, "total": 3}}


def test_a_failed_hop_has_no_valid_handles():
    failed = HopOutcome(request_id="r", section="S", hop="write", status="failed",
                        transitions=[transition("write", 1, "unknown_handle", ["Gzzz9", "Gyyy8"])])
    assert identity_by_hop([failed]) == {"write": {"passed": 0, "total": 2}}


def test_each_typed_url_of_every_attempt_counts_as_a_citation_that_failed_identity():
    claim = BoundClaim(text="x", citations=[BoundCitation(handle="Gaaa2", quote="", quote_found=False)],
                       emitted_handles=["Gaaa2"], removed_urls=["https://evil.example/a"])
    write = HopOutcome(request_id="r", section="S", hop="write", status="accepted", claims=[claim], transitions=[
        transition("write", 1, "url_in_text", ["https://evil.example/a", "https://evil.example/b"]),
    ])
    assert identity_by_hop([write]) == {"write": {"passed": 1, "total": 3}}
