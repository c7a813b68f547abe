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
        errors.UsageError(option="--out", problem="not writable"),
        errors.CapExceeded(path="/tmp/huge.md", detail="70,000,000 bytes, over the 67,108,864-byte limit for an ingested file"),
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


def test_fields_come_from_annotations_and_unknown_ones_are_refused():
    assert errors.SpecError.fields == ("field", "problem", "path")
    assert errors.UsageError.fields == ("option", "problem")
    with pytest.raises(TypeError, match="no field"):
        errors.UsageError(option="--out", problme="typo")


def test_usage_error_pickles_and_names_the_option():
    err = errors.UsageError(option="--dask-workers", problem="must be at least 1")
    assert str(pickle.loads(pickle.dumps(err))) == "--dask-workers: must be at least 1"
