"""Known mistakes: the corpus's wrong submissions get their bugs' names, right ones never get a name.

A wrong file whose bug is in the bank says so on its second line, `# mistake: q03.softmax_query_axis` (several names,
comma-separated, when its bug also shows in another function's check). Any file may also pin down words: `# says:
TEXT` (some failed check's message holds TEXT), `# never says: TEXT` (none does) and `# keeps: CHECK` (the check of
that name passes, so that a bug costs only the checks it should). The corpus is graded once, by the session's
`graded` fixture (tests/conftest.py), which tests/test_corpus.py shares. The other tests replay the bank by hand."""
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from test_corpus import CORPUS, COURSE, RIGHT, WRONG, Graded, _package, key, question_of

from autograder.course.implicated import earlier_implicated
from autograder.course.text import failed_lines
from autograder.course.results import CaseResult, QuestionResult, Report
from autograder.engine import proxy
from autograder.engine.asserts import known_mistake, naming
from autograder.engine.run import grade_many
from autograder.engine.mistakes import bank
from autograder.engine.proxy import Call
from reference import dot_product

BANKS = {number: bank(number) for number in COURSE.numbers if bank(number) is not None}
DECLARED = re.compile(r"^# mistake: (.+)$", re.MULTILINE)
PINNED = re.compile(r"^# (says|never says|keeps): (.+)$", re.MULTILINE)


def declared(path: Path) -> set[str]:
    """The names a corpus file's `# mistake:` line gives."""
    return {name.strip() for line in DECLARED.findall(path.read_text(encoding="utf-8")) for name in line.split(",")}


def named(path: Path, graded: Graded) -> set[str]:
    """The names of the mistakes the file's failed checks report."""
    found = BANKS.get(question_of(path))
    messages = [test.message for test in graded[path].tests if not test.passed]
    return {
        found.name(m) for m in (found.mistakes if found else ()) for message in messages if found.sentence(m) in message
    }


@pytest.mark.parametrize("path", WRONG + RIGHT, ids=key)
def test_corpus_names(graded: Graded, path: Path) -> None:
    """A wrong file gets exactly the names it declares (none when it declares none); a right file gets none; the
    report's tests carry them as ids (`"mistake"` in --json)."""
    assert named(path, graded) == declared(path)
    assert {test.to_dict().get("mistake") for test in graded[path].tests} - {None} == declared(path)


def pinned(path: Path) -> list[tuple[str, str]]:
    """The (kind, text) of a corpus file's `# says:`, `# never says:` and `# keeps:` lines."""
    return PINNED.findall(path.read_text(encoding="utf-8"))


PINNING = [path for path in WRONG + RIGHT if pinned(path)]


@pytest.mark.parametrize("path", PINNING, ids=key)
def test_corpus_words(graded: Graded, path: Path) -> None:
    """The words a file pins down: said in a failed check, never said, or a check that must pass."""
    tests = graded[path].tests
    messages = [test.message for test in tests if not test.passed]
    for kind, text in pinned(path):
        if kind == "says":
            assert any(text in message for message in messages), (text, messages)
        elif kind == "never says":
            assert not any(text in message for message in messages), (text, messages)
        else:
            assert any(test.name == text and test.passed for test in tests), (
                text,
                [(t.name, t.passed, t.message) for t in tests],
            )


def test_declared_names_exist() -> None:
    """Every `# mistake:` name is in its question's bank, and every bank names real functions and hints."""
    names = {bank_.name(m) for bank_ in BANKS.values() for m in bank_.mistakes}
    assert {name for path in WRONG for name in declared(path)} <= names
    assert not any(declared(path) for path in RIGHT)
    for number, found in BANKS.items():
        assert set(found.correct) <= set(COURSE.question(number).functions), number
        assert len({m.name for m in found.mistakes}) == len(found.mistakes), number
        for mistake in found.mistakes:
            assert mistake.variants and set(mistake.variants) <= set(found.correct), found.name(mistake)
            assert 1 <= mistake.hint <= len(COURSE.question(mistake.hint_of or number).hints), found.name(mistake)
            assert "\n" not in mistake.explanation, found.name(mistake)


@pytest.fixture(autouse=True)
def _own_latest_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proxy's record of the latest call is this test's own."""
    monkeypatch.setattr(proxy, "_latest", [])


def _returned(number: int, function: str, args: tuple, value: object) -> object:
    """Record value as what the student's function returned for args in question number (no sandbox); return it."""
    student = SimpleNamespace(_question=COURSE.question(number), made={}, loaded={})
    proxy._latest[:] = [Call(student, function, args, {}, value)]
    return value


Q, K, V = (
    torch.randn(2, 4, width, generator=torch.Generator().manual_seed(seed)) for seed, width in ((1, 3), (2, 3), (3, 5))
)


def test_match_names_the_mistake_and_its_hint() -> None:
    """A result equal to a variant's gets the mistake's line and the hint to open."""
    weights = torch.softmax(
        dot_product.scaled_scores(Q, K).masked_fill(~torch.ones(4, 4).tril().bool(), float("-inf")), dim=-2
    )
    got = _returned(3, "attention", (Q, K, V), (weights @ V, weights))
    assert known_mistake(got) == (
        "; this matches a known mistake: the weights' columns sum to 1, not their rows: the softmax "
        "runs over the query axis (dim -2) instead of the keys (see `python -m autograder hint 3`, hint 2)"
    )


def test_no_name_for_a_right_answer_another_value_or_an_unknown_result() -> None:
    """A right answer (which the variant for a (1, T, T) mask also gives on batched inputs), a result no variant
    gives, or a value that is not the latest call's result is never named."""
    assert known_mistake(_returned(3, "attention", (Q, K, V), dot_product.attention(Q, K, V))) == ""
    out, weights = dot_product.attention(Q, K, V)
    assert known_mistake(_returned(3, "attention", (Q, K, V), (out + 1, weights))) == ""
    _returned(2, "scaled_scores", (Q, K), torch.matmul(Q, K.transpose(-2, -1)))
    # an equal tensor, but not the one the call returned
    assert known_mistake(torch.matmul(Q, K.transpose(-2, -1))) == ""


def test_ambiguous_match_gets_no_name() -> None:
    """With one key, no scaling and a division by sqrt(Tk) give the same scores: neither is named."""
    q, k = Q, K[:, :1]
    assert known_mistake(_returned(2, "scaled_scores", (q, k), torch.matmul(q, k.transpose(-2, -1)))) == ""
    assert "raw dot products" in known_mistake(
        _returned(2, "scaled_scores", (Q, K), torch.matmul(Q, K.transpose(-2, -1)))
    )


def test_variant_that_does_not_apply_is_skipped() -> None:
    """k.T of a batched k raises in the variant for these shapes; the other variants are still tried."""
    got = _returned(2, "scaled_scores", (Q, K), torch.matmul(Q, K.transpose(-2, -1)) / 3)
    assert "divided by d instead of sqrt(d)" in known_mistake(got)


def test_a_mistake_is_named_only_on_an_input_that_tells_it_apart() -> None:
    """At T = 1 a mask True where hidden is also a mask without its diagonal: nothing is named and the input is
    unsettled; at T = 2 it is the inverted mask alone."""
    inverted = lambda T: torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)  # noqa: E731 - the student's causal_mask
    assert naming(_returned(1, "causal_mask", (1,), inverted(1)))[:2] == ("", "unsettled")
    sentence, judged = naming(_returned(1, "causal_mask", (2,), inverted(2)))[:2]
    assert judged == "named" and "True where a key is hidden" in sentence


def test_nan_is_no_evidence() -> None:
    """At T = 1 a mask that hides everything gives NaN, as the mask that hides the past does: NaN equal to NaN names
    nothing."""
    q, k, v = (torch.randn(1, 2, generator=torch.Generator().manual_seed(seed)) for seed in (1, 2, 3))
    weights = torch.full((1, 1), float("nan"))
    assert naming(_returned(3, "attention", (q, k, v), (weights @ v, weights)))[:2] == ("", "unsettled")


def test_the_clock_speed_is_a_pure_function_of_the_check_and_its_input() -> None:
    """The same key gives the same speed in every run; another input another speed, within CLOCK_SPEEDS."""
    student = proxy.Student(None, COURSE.question(9))
    speeds = []
    for block in (("time_attention", 64, 32, 5), ("time_attention", 64, 32, 5), ("time_attention", 128, 64, 5)):
        with student.virtual_clock(*block) as speed:
            speeds.append(speed)
    assert speeds[0] == speeds[1] != speeds[2] and all(
        proxy.CLOCK_SPEEDS[0] <= s <= proxy.CLOCK_SPEEDS[1] for s in speeds
    )


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_one_timing_answer_graded_five_times_gets_one_score(tmp_path: Path) -> None:
    """A mean after a warm-up timed on the clock itself: its number of warm-up reads follows the speed, yet every run
    agrees."""
    source = CORPUS / "wrong" / "q09_time_mean_timed_warmup.py"
    submissions = [(_package(tmp_path / f"run{index}", source), [9]) for index in range(5)]
    results = [report.questions[0] for report in grade_many(COURSE, submissions)]
    assert len({(result.score, tuple(test.message for test in result.tests)) for result in results}) == 1
    assert results[0].score < results[0].max_score


def test_a_known_mistake_is_said_once_and_an_earlier_question_at_full_marks_is_not_blamed() -> None:
    """Two checks that meet the same known mistake: the second says `the same known mistake as above`. Question 5's
    failures that name question 1's file do not send the student back to a question 1 at full marks."""
    sentence = BANKS[3].sentence(BANKS[3].mistakes[0])
    tests = [
        CaseResult("first", False, f"the output differs; {sentence}"),
        CaseResult("second", False, f"the weights differ; {sentence}"),
    ]
    text = "\n".join(failed_lines(tests, 400))
    assert text.count("this matches a known mistake") == 1 and "the same known mistake as above" in text
    failure = CaseResult("matches", False, "raised TypeError at exercises/q01_causal_mask.py line 3: return x")
    report = Report([QuestionResult(1, "", 8, "passed"), QuestionResult(5, "", 14, "failed", tests=[failure])])
    assert 1 not in earlier_implicated(report.questions[1], report, COURSE)
    report.questions[0].status = "failed"
    assert 1 in earlier_implicated(report.questions[1], report, COURSE)


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_an_earlier_module_that_does_not_import_costs_only_the_checks_that_call_it(tmp_path: Path) -> None:
    """A syntax error in question 3's file: question 9's checks that never call attention keep their points."""
    package = _package(tmp_path / "package")
    broken = package / "q03_attention.py"
    broken.write_text(broken.read_text(encoding="utf-8").replace("dim=-1)", "dim=-1", 1), encoding="utf-8")
    result = grade_many(COURSE, [(package, [9])])[0].questions[0]
    passed = {test.name: test.passed for test in result.tests}
    assert (
        result.status == "failed"
        and sum(passed.values()) == 3
        and not passed["time_attention reports one forward, robust to noise"]
    )
    assert "exercises/q03_attention.py does not import (SyntaxError at line" in result.tests[0].message


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_an_earlier_module_with_a_syntax_error_is_said_once_with_the_students_line(tmp_path: Path) -> None:
    """A syntax error in question 2's file seen from question 3: every check that calls it says that file does not
    import, with the student's own line, in the same words (the report says it once), with no line of the kit's
    stand-in and no input."""
    package = _package(tmp_path / "package")
    broken = package / "q02_scaled_scores.py"
    source = broken.read_text(encoding="utf-8")
    broken.write_text(source.replace("/ math.sqrt(d)  #", "/ math.sqrt(d  #", 1), encoding="utf-8")
    line = next(
        number
        for number, text in enumerate(broken.read_text(encoding="utf-8").splitlines(), 1)
        if "math.sqrt(d  #" in text
    )
    result = grade_many(COURSE, [(package, [3])])[0].questions[0]
    failed = [test.message for test in result.tests if not test.passed]
    assert result.status == "failed" and failed
    assert len(set(failed)) == 1, failed
    assert f"exercises/q02_scaled_scores.py does not import (SyntaxError at line {line}: " in failed[0], failed[0]
    assert "math.sqrt(d" in failed[0] and "raise" not in failed[0] and "smallest failing input" not in failed[0], (
        failed[0]
    )


def test_an_earlier_question_is_blamed_only_for_the_functions_the_code_reaches_and_through_the_files_between() -> None:
    """Question 3 imports causal_mask and mask_scores from question 1: a question 1 failing on prefix_average alone
    is not blamed, one failing on causal_mask is. Question 10 reaches question 4 through question 5's file: a broken
    question 4 is named, with question 5 when it fails too (no last `check` given: this checkout's is not read)."""
    failure = CaseResult("attention matches", False, "the weights differ")
    first = QuestionResult(
        1, "", 8, "failed", tests=[CaseResult("prefix_average gives the running mean", False, "differs")]
    )
    report = Report([first, QuestionResult(3, "", 10, "failed", tests=[failure])])
    assert 1 not in earlier_implicated(report.questions[1], report, COURSE)
    first.tests = [CaseResult("causal_mask is a bool lower triangle", False, "differs")]
    assert 1 in earlier_implicated(report.questions[1], report, COURSE)
    heads = QuestionResult(
        4, "", 8, "failed", tests=[CaseResult("split_heads gives head h the columns", False, "differs")]
    )
    training = QuestionResult(10, "", 12, "failed", tests=[CaseResult("train", False, "the last losses average 3.1")])
    fifth = QuestionResult(5, "", 14, "passed")
    report = Report([heads, fifth, training])
    assert earlier_implicated(training, report, COURSE) == [4]
    fifth.status, fifth.tests = "failed", [CaseResult("output and weights match", False, "differs")]
    assert earlier_implicated(training, report, COURSE) == [4, 5]
