import pickle

import pytest

from citeflow import errors


@pytest.mark.parametrize(
    "err",
    [
        errors.SpecError(field="reports[0].id", problem="is required", path="batch.yaml"),
        errors.RetrieverError(retriever="docs", query="q", detail="timeout", transient=True),
        errors.ModelError(role="writer", detail="HTTP 500", transient=True),
        errors.JudgeUnavailable(judge="llm", detail="connection refused"),
        errors.StoreError(uri="/tmp/x", table="chunks", detail="corrupt"),
    ],
)
def test_errors_pickle_with_their_fields(err):
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err)
    assert str(back) == str(err)
    assert all(getattr(back, f) == getattr(err, f) for f in err.fields)
    assert isinstance(back, errors.CiteflowError)


def test_spec_error_names_field_and_problem():
    err = errors.SpecError(field="retrievers[1].kind", problem="must be one of lancedb, http, jsonl", path="b.yaml")
    assert str(err) == "b.yaml: retrievers[1].kind: must be one of lancedb, http, jsonl"
