"""The student build's recordings: canonical digests, plain encodings, and the stand-ins that answer from them."""
import json
from pathlib import Path

import pytest
import torch

from autograder.recording import canon, recorded
from autograder.recording.canon import Blobs, Raised, Results, Section, decode, digest, dump, encode, load


def roundtrip(value: object) -> object:
    """value encoded, written, read back and decoded."""
    blobs = Blobs()
    table, read = load(dump({"value": encode(value, blobs)}, blobs))
    return decode(table["value"], read)


def test_a_digest_names_the_values_not_their_layout() -> None:
    x = torch.arange(6.0).reshape(2, 3)
    assert digest((x,), {}) == digest((x.T.contiguous().T,), {}) == digest((x.clone(),), {})
    others = [
        ((x.double(),), {}),
        ((x.reshape(3, 2),), {}),
        ((x + 1e-7,), {}),
        ((x,), {"causal": True}),
        ((x, 1), {}),
        ((x, 1.0), {}),
        ((x, True), {}),
        ((x, torch.float64), {}),
    ]
    assert len({digest(*call) for call in others} | {digest((x,), {})}) == len(others) + 1
    with pytest.raises(canon.Uncanonical):
        digest((object(),), {})


def test_results_come_back_as_they_were_given() -> None:
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    view = x.permute(0, 2, 1)
    got = roundtrip((view, [torch.ones(2, 2, dtype=torch.bool).tril(), 3, 2.5, None, "s"], {"k": torch.tensor(7)}))
    assert (
        isinstance(got, tuple)
        and torch.equal(got[0], view)
        and got[0].stride() == view.stride()
        and got[0].dtype == torch.float64
    )
    assert torch.equal(got[1][0], torch.ones(2, 2, dtype=torch.bool).tril()) and got[1][1:] == [3, 2.5, None, "s"]
    assert torch.equal(got[2]["k"], torch.tensor(7))
    assert (
        roundtrip(torch.zeros(0, 3)).shape == (0, 3)
        and roundtrip(torch.tensor(1.0).expand(2, 2)).tolist() == [[1.0, 1.0]] * 2
    )
    with pytest.raises(Raised, match="ValueError"):
        roundtrip(ValueError("D % H != 0"))


def test_a_recording_is_the_same_bytes_each_time_and_loads_no_code() -> None:
    tables = []
    for _ in range(2):
        blobs = Blobs()
        tables.append(dump({"a": encode(torch.arange(3.0), blobs), "b": encode(torch.arange(3.0), blobs)}, blobs))
    assert tables[0] == tables[1] and tables[0].startswith(canon.FORMAT)
    assert len(load(tables[0])[1]) == 1  # the same result twice is kept once
    with pytest.raises(ValueError):
        load(b"\x80\x04 a pickle")


def test_a_results_table_is_parsed_only_when_first_read() -> None:
    """The student build's check reads a few tables of its question's recording: the others (the bank's, mostly) cost
    nothing."""
    blobs = Blobs()
    table = {
        "oracle": {"f": Results({"k1": encode(torch.arange(3.0), blobs)}), "g": Results({"k2": 2.5})},
        "bank": None,
    }
    read, read_blobs = load(dump(table, blobs))
    assert isinstance(read["oracle"]["f"], Section) and read["oracle"]["f"].table is None and read["bank"] is None
    assert "k1" in read["oracle"]["f"] and torch.equal(decode(read["oracle"]["f"]["k1"], read_blobs), torch.arange(3.0))
    assert read["oracle"]["f"].table is not None and read["oracle"]["g"].table is None
    assert dict(read["oracle"]["g"]) == {"k2": 2.5} and "k3" not in read["oracle"]["g"]


@pytest.fixture
def student_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A recordings folder of one question: masking.causal_mask on T=2, and a bank of one mistake."""
    blobs = Blobs()
    right, wrong = torch.ones(2, 2, dtype=torch.bool).tril(), torch.ones(2, 2, dtype=torch.bool).triu()
    key = digest((2,), {})
    table = {
        "oracle": {"reference.masking.causal_mask": Results({key: encode(right, blobs)})},
        "bank": {
            "correct": {"causal_mask": Results({key: encode(right, blobs)})},
            "mistakes": [
                {
                    "name": "mask_triu",
                    "explanation": "the mask keeps the upper triangle",
                    "hint": 2,
                    "hint_of": None,
                    "variants": {"causal_mask": Results({key: encode(wrong, blobs)})},
                }
            ],
        },
    }
    folder = tmp_path / "autograder" / "recordings"  # as in a release: the kit's root is tmp_path
    folder.mkdir(parents=True)
    (folder / "q01.rec").write_bytes(dump(table, blobs))
    (folder / "index.json").write_text(
        json.dumps(
            {
                "modules": {"masking": ["causal_mask"]},
                "oracle": {"reference.masking.causal_mask": [1]},
                "banks": ["q01"],
            }
        )
    )
    monkeypatch.setattr(recorded, "RECORDINGS", folder)
    recorded._index.cache_clear()
    recorded._question.cache_clear()
    yield folder
    recorded._index.cache_clear()
    recorded._question.cache_clear()


def test_the_stand_ins_answer_recorded_inputs_and_fail_closed_on_others(student_build: Path) -> None:
    causal_mask = recorded.oracle("reference.masking.causal_mask")
    assert torch.equal(causal_mask(2), torch.ones(2, 2, dtype=torch.bool).tril())
    with pytest.raises(recorded.NotRecorded, match="cannot be checked locally") as raised:
        causal_mask(3)
    assert isinstance(raised.value, AssertionError)  # a check that meets it fails: never a pass, never a grader's fault
    with pytest.raises(recorded.NotRecorded):
        causal_mask(object())
    bank = recorded.recorded_bank(1)
    assert [m.name for m in bank.mistakes] == ["mask_triu"] and bank.sentence(bank.mistakes[0]).count(
        "upper triangle"
    ) == 1
    assert torch.equal(bank.mistakes[0].variants["causal_mask"](2), torch.ones(2, 2, dtype=torch.bool).triu())
    assert torch.equal(bank.correct["causal_mask"](2), causal_mask(2))


def test_the_student_build_is_told_by_its_missing_oracle(student_build: Path) -> None:
    assert recorded.student_build()  # recordings, and no reference/ beside the folder's parent (tmp_path)
    (student_build.parent.parent / "reference").mkdir(exist_ok=True)
    assert not recorded.student_build()


def test_inside_hypothesis_an_input_not_recorded_is_rejected_not_failed(student_build: Path) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    causal_mask = recorded.oracle("reference.masking.causal_mask")
    seen = []

    @settings(derandomize=True, database=None, max_examples=20)
    @given(T=st.integers(2, 3))
    def check(T: int) -> None:
        seen.append(T)
        # T=3 is not recorded: hypothesis drops that example (a shrink candidate too)
        assert causal_mask(T).shape == (2, 2)

    check()
    assert 2 in seen and 3 in seen


def test_a_float_differing_in_its_last_bits_records_the_same() -> None:
    """LAPACK (q09's least squares) may give the last bits differently from one process to the next: the bytes stay."""
    tables = []
    for value in (-18.51476843215815, -18.514768432158156):
        blobs = Blobs()
        tables.append(dump({"fit": encode(value, blobs)}, blobs))
    assert tables[0] == tables[1] and abs(roundtrip(-18.51476843215815) + 18.51476843215815) < 1e-11
    assert (
        roundtrip(float("nan")) != roundtrip(float("nan"))
        and roundtrip(float("inf")) == float("inf")
        and roundtrip(3) == 3
    )
