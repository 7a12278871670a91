"""French: --lang and the locale choose the language, the catalogues cover every marked message and course text."""
import ast
import base64
import json
import re
import shutil
from pathlib import Path

import pytest
import torch
from babel.messages.catalog import Catalog
from conftest import Cli, run_cli

from autograder.cli.main import USAGE_ERROR, _parser, main
from autograder.course.manifest import ENCODED, Course, course_texts, decode_answer, load_course
from autograder.course.results import PASSED, CaseResult, QuestionResult, Report
from autograder.i18n import COURSE, MESSAGES, _, in_english, language_from_environment, ngettext, set_language
from autograder.maintainer.catalog import (
    PACKAGE,
    TRANSLATED,
    catalogue_path,
    compiled,
    course_template,
    message_template,
    new_catalogue,
    po_bytes,
    read_catalogue,
    untranslated,
)
from autograder.maintainer.release import encode_answers

ROOT = Path(__file__).resolve().parent.parent
MARKERS = {"_", "N_", "ngettext"}
LOCALE = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}


@pytest.fixture(autouse=True)
def _language_from_the_locale_afterwards():
    """Each test may switch the language; the next one starts from the locale's again."""
    yield
    set_language(None)


def _run(cli: Cli, *args: str, lang: str | None, cwd: Path = ROOT, status: int = 0) -> str:
    """The stdout of `python -m autograder args` run by cli in the kit's folder (or cwd), with LANG=lang and no other
    locale variable, which exited with status (the command reads the locale when it runs: in this process too)."""
    with pytest.MonkeyPatch.context() as local:
        for variable in LOCALE:
            local.delenv(variable, raising=False)
        if lang:
            local.setenv("LANG", lang)
        done = cli(cwd, *args)
    assert done.returncode == status, done.stderr
    return done.stdout


def test_check_3_reads_as_french_with_lang_or_with_a_french_locale(cli: Cli) -> None:
    for table in (
        _run(cli, "check", "3", "--solutions", "--lang", "fr", lang="C.UTF-8"),
        _run(cli, "check", "3", "--solutions", lang="fr_FR.UTF-8"),
    ):
        assert "Attention causale à une tête" in table and "correction de solutions/" in table
        assert "Note" in table and "État" in table and "réussie" in table and "Total\u00a0: 12 / 12" in table
        assert "Autoévaluation de la question 3" in table
        assert "Quels rôles jouent la requête, la clé et la valeur" in table and "rétropropagation" in table
        assert "Single-head" not in table and "Self-test" not in table and "passed" not in table


def test_a_failed_check_reads_as_french_name_mismatch_and_known_mistake(tmp_path: Path, cli: Cli) -> None:
    for name in ("autograder", "reference", "course.yaml"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "solutions", tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(
        ROOT / "tests" / "corpus" / "wrong" / "q03_softmax_dim_minus2.py", tmp_path / "exercises" / "q03_attention.py"
    )
    table, report = (
        _run(cli, "check", "3", *flags, "--lang", "fr", lang=None, cwd=tmp_path, status=1) for flags in ([], ["--json"])
    )
    table = re.sub(r"\n +", " ", table)  # lines wrapped to the terminal, joined again
    assert "x l'attention causale concorde avec F.scaled_dot_product_attention -- la sortie\u00a0: " in table
    assert (
        "positions sur" in table
        and "diffèrent des valeurs attendues, la première en [0, 0], avec un écart allant jusqu'à" in table
    )
    assert re.search(r"jusqu'à \d+,\d+ \(tolérance d'environ 1e-05\)", table)  # a decimal comma in the sentence
    assert (
        "\u00a0; cela correspond à une erreur connue\u00a0: ce sont les colonnes des poids, et non leurs lignes, qui "
        "ont pour somme 1\u00a0: le softmax porte sur l'axe des requêtes (dim -2) et non sur celui des clés (voir "
        "`python -m autograder hint 3`, indice 2)"
    ) in table
    assert (
        "[plus petit contre-exemple\u00a0: q float32" in table
        and "causal=True]" in table
        and "votre résultat pour les poids\u00a0: [[" in table
    )
    assert "known mistake" not in table and "positions differ" not in table and "smallest failing input" not in table
    tests = json.loads(report)["questions"][0]["tests"]
    assert (
        tests[0]["name"] == "l'attention causale concorde avec F.scaled_dot_product_attention"
        and not tests[0]["passed"]
    )
    assert "cela correspond à une erreur connue" in tests[0]["message"]


def test_one_error_in_several_checks_is_said_once_in_french_too() -> None:
    from autograder.course.text import failed_lines
    from autograder.engine.inputs import INPUT_NOTE

    set_language("fr")
    message = _("the result differs from what this check expects")
    tests = [CaseResult(name, False, f"{message} [{_(INPUT_NOTE)}: T {T}]") for name, T in (("a", 1), ("b", 2))]
    lines = failed_lines(tests, 200)
    assert lines[0].strip() == f"x 2 vérifications -- {message}, sur ces entrées\u00a0:" and len(lines) == 3
    assert lines[1].strip() == "- a [plus petit contre-exemple\u00a0: T 1]"


def test_json_keeps_the_contract_keys_and_statuses_in_english(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the engine, without its sandbox
    def grade(course: Course, package: Path, numbers: list[int], notes: bool) -> Report:
        check = CaseResult("causal attention matches F.scaled_dot_product_attention", True)
        return Report(
            [QuestionResult(n, course.question(n).title, course.question(n).points, PASSED, [check]) for n in numbers]
        )

    monkeypatch.setattr("autograder.engine.run.grade", grade)
    assert main(["check", "3", "--solutions", "--json", "--lang", "fr"]) == 0
    report = json.loads(capsys.readouterr().out)
    question = report["questions"][0]
    assert set(report) == {"score", "max_score", "questions"} and question["title"] == "Attention causale à une tête"
    assert question["status"] == "passed" and question["tests"] == [
        {"name": "causal attention matches F.scaled_dot_product_attention", "passed": True, "message": ""}
    ]


@pytest.mark.parametrize(
    "args, lang",
    [
        (["list", "--lang", "en"], "fr_FR.UTF-8"),
        (["--lang", "en", "list"], "fr_FR.UTF-8"),
        (["list"], "C.UTF-8"),
        (["list"], None),
    ],
)
def test_english_with_lang_en_or_without_a_french_locale(args: list[str], lang: str | None) -> None:
    out = _run(run_cli, *args, lang=lang)  # `list` grades nothing: no sandbox
    assert "Single-head causal attention" in out and "Status" in out and "not started" in out
    assert "Attention causale" not in out and "État" not in out


def test_hint_and_selftest_follow_lang(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from autograder.cli import progress

    monkeypatch.setattr(progress, "opened", lambda course: {7})  # question 7's answers are open
    assert main(["hint", "7", "--lang", "fr"]) == 0 and main(["selftest", "7", "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "Indices pour la question 7, À quoi sert tanh\u00a0:" in out
    assert "Autoévaluation de la question 7" in out and "Corrigé\u00a0: Le score linéaire se décompose" in out
    monkeypatch.setattr(progress, "opened", lambda course: set())  # not yet at full marks: questions only
    assert main(["selftest", "7", "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "Autoévaluation de la question 7" in out and "tous les points" in out and "Corrigé\u00a0:" not in out
    assert main(["hint", "7", "--lang", "en"]) == 0
    assert "Hints for question 7, What tanh is for:" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "1"],
        ["list"],
        ["hint", "1"],
        ["selftest", "1"],
        ["nbgrader", "out"],
        ["grade", "d", "--out", "o"],
        ["gradescope", "k.zip"],
        ["release", "out"],
        ["dev-check"],
        ["new", "11", "padded_attention"],
    ],
)
def test_every_sub_command_takes_lang_before_or_after_it(argv: list[str]) -> None:
    assert _parser().parse_args([*argv, "--lang", "fr"]).lang == "fr"
    assert _parser().parse_args(["--lang", "fr", *argv]).lang == "fr"
    assert _parser().parse_args(argv).lang is None


def test_an_unknown_language_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--lang", "de"]) == USAGE_ERROR
    assert "invalid choice: 'de'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "fr_CA"}, "fr"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LC_ALL": "fr_FR.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LC_MESSAGES": "en_GB.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANGUAGE": "de:fr", "LANG": "en_US"}, "fr"),
        ({"LANGUAGE": "", "LANG": "fr_BE@euro"}, "fr"),
        ({"LANGUAGE": "en:fr", "LANG": "fr_FR"}, "en"),
    ],
)
def test_the_locale_picks_the_language_as_gettext_reads_it(environ: dict[str, str], expected: str) -> None:
    assert language_from_environment(environ) == expected


def test_course_texts_are_translated_when_loaded_and_encoded_answers_stay_encoded(tmp_path: Path) -> None:
    english = load_course(ROOT, translate=str)
    (tmp_path / "course.yaml").write_text(
        encode_answers((ROOT / "course.yaml").read_text(encoding="utf-8")), encoding="utf-8"
    )
    set_language("fr")
    plain, released = load_course(ROOT), load_course(tmp_path)
    question = plain.question(3)
    assert plain.title == "L'attention, construite à la main" and question.title == "Attention causale à une tête"
    assert question.hints[1].startswith("Le softmax porte sur les clés") and "requête" in question.selftest[0].question
    stored = released.question(3).selftest[0].answer
    assert stored.startswith(ENCODED) and decode_answer(stored) == question.selftest[0].answer
    assert decode_answer(stored).startswith("La requête dit ce que cherche une position")
    assert not {text for text, _where in course_texts(english)} & {text for text, _where in course_texts(released)}
    set_language("en")
    assert load_course(ROOT) == english


def test_every_marked_message_and_every_course_text_has_a_french_form() -> None:
    for language in TRANSLATED:
        assert untranslated(message_template(), read_catalogue(catalogue_path(language, MESSAGES))) == []
        assert untranslated(course_template(ROOT), read_catalogue(catalogue_path(language, COURSE))) == []


def _literal_marks(path: Path) -> tuple[set[str], list[str]]:
    """The string literals passed to _/N_/ngettext in path (f-strings included), and the calls no extractor can read."""
    found, unreadable = set(), []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
            # a marked constant is fine; f"..." is not
            elif not isinstance(first, (ast.Name, ast.Attribute, ast.Subscript)):
                unreadable.append(f"{path.name}:{node.lineno}")
    return found, unreadable


def test_the_extractor_sees_every_marked_literal_and_none_is_built_at_run_time() -> None:
    extracted = {
        message.id if isinstance(message.id, str) else message.id[0] for message in message_template() if message.id
    }
    for path in sorted(PACKAGE.rglob("*.py")):
        found, unreadable = _literal_marks(path)
        assert found <= extracted, f"{path.name}: {sorted(found - extracted)} (marked inside an f-string?)"
        assert not unreadable, f"_() of a built string at {unreadable}: write _('... {{x}} ...').format(x=...)"


def test_the_completeness_check_catches_a_planted_untranslated_message(tmp_path: Path) -> None:
    (tmp_path / "planted.py").write_text(
        'from autograder.i18n import _\n\nprint(_("a planted message nobody translated"))\n'
    )
    french = read_catalogue(catalogue_path("fr", MESSAGES))
    assert untranslated(message_template(tmp_path), french) == ["a planted message nobody translated"]
    _found, unreadable = _literal_marks(tmp_path / "planted.py")
    (tmp_path / "built.py").write_text('from autograder.i18n import _\nx = 1\nprint(_(f"built {x}"))\n')
    assert not unreadable and _literal_marks(tmp_path / "built.py")[1] == ["built.py:3"]
    template, catalogue = Catalog(), Catalog(locale="fr")
    for message in ("kept", "empty", "fuzzy", "absent"):
        template.add(message)
    catalogue.add("kept", "gardé")
    catalogue.add("empty", "")
    catalogue.add("fuzzy", "flou", flags=["fuzzy"])
    template.add(("one line", "{n} lines"))
    catalogue.add(("one line", "{n} lines"), ("une ligne", ""))
    assert untranslated(template, catalogue) == ["empty", "fuzzy", "absent", "one line"]


def test_the_catalogues_hold_no_line_references_so_moving_a_message_changes_nothing(tmp_path: Path) -> None:
    """No `#:` file:line location in a .po: an edit above a message, or a message moved to another file, leaves the
    .po as it was."""
    for language in TRANSLATED:
        for domain in (MESSAGES, COURSE):
            text = catalogue_path(language, domain).read_text(encoding="utf-8")
            assert not re.search(r"^#:", text, re.MULTILINE), f"{language}/{domain}.po holds `#:` locations"
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    (tmp_path / "before" / "one.py").write_text('from autograder.i18n import _\n\nprint(_("a message that moves"))\n')
    (tmp_path / "after" / "two.py").write_text(
        '"""Lines above."""\nfrom autograder.i18n import _\n\n\nx = 1\nprint(_("a message that moves"))\n'
    )
    rendered, fixed = [], read_catalogue(catalogue_path("fr", MESSAGES)).creation_date  # one date in both headers
    for folder in ("before", "after"):
        catalogue = new_catalogue("fr", MESSAGES)
        catalogue.update(message_template(tmp_path / folder))
        catalogue.creation_date = catalogue.revision_date = fixed
        rendered.append(po_bytes(catalogue))
    assert rendered[0] == rendered[1] and b"a message that moves" in rendered[0]


@pytest.mark.parametrize("domain", [MESSAGES, COURSE])
def test_the_committed_mo_files_are_compiled_from_the_po_files(domain: str) -> None:
    for language in TRANSLATED:
        mo = catalogue_path(language, domain, ".mo")
        assert mo.read_bytes() == compiled(read_catalogue(catalogue_path(language, domain))), (
            f"{mo} is stale: run python -m autograder.maintainer.catalog"
        )


def test_french_messages_and_plurals() -> None:
    set_language("fr")
    assert _("passed") == "réussie" and _("a message with no entry") == "a message with no entry"
    one, two = (
        "your code printed {count} line; the first: {line}",
        "your code printed {count} lines; the first: {line}",
    )
    assert ngettext(one, two, 1).startswith("votre code a affiché {count} ligne\u00a0;")
    assert ngettext(one, two, 2).startswith("votre code a affiché {count} lignes\u00a0;")
    set_language("en")
    assert _("passed") == "passed" and ngettext(one, two, 2) == two


def test_a_release_ships_the_compiled_catalogues_but_not_the_sources_that_show_the_answers() -> None:
    from autograder.maintainer.release import main_files

    files = main_files(load_course(ROOT))
    assert {f"autograder/locale/fr/LC_MESSAGES/{domain}.mo" for domain in (MESSAGES, COURSE)} <= set(files)
    assert not [path for path in files if path.endswith(".po")]
    answer = base64.b64encode(load_course(ROOT, translate=str).question(3).selftest[0].answer.encode()).decode()
    assert ENCODED + answer in files["course.yaml"].decode()


def test_lines_the_sandbox_child_writes_in_english_are_translated_where_they_are_explained() -> None:
    from autograder.engine.proxy import explain

    question = load_course(ROOT).question(1)
    missing = {
        "type": "MissingFunction",
        "message": "function `causal_mask` not found in exercises/q01_causal_mask.py",
        "where": [],
        "template": "function `{name}` not found in {file}",
        "fields": {"name": "causal_mask", "file": "exercises/q01_causal_mask.py"},
    }
    other = {"type": "MissingFunction", "message": "a line no pattern knows", "where": []}
    set_language("fr")
    assert explain(missing, question) == "fonction `causal_mask` introuvable dans exercises/q01_causal_mask.py"
    assert explain(other, question) == "a line no pattern knows"
    set_language("en")
    assert explain(missing, question) == missing["message"]


CALQUES = (
    "somment",
    "sommer à",
    "réponse modèle",
    "réponses modèles",
    "plus petite entrée en échec",
    "au lieu des clés",
    "regrader",
    # English turned word for word into French, once in the catalogues
    "tuyauterie",
    "le chiffre",
    "en lot ;",
    "resterait en arrière",
)


def _french_strings(domain: str) -> list[str]:
    """Every French string of the domain's catalogue (both forms of a plural)."""
    strings = []
    for message in read_catalogue(catalogue_path("fr", domain)):
        if message.id:
            strings += list(message.string) if isinstance(message.string, (tuple, list)) else [message.string]
    return strings


@pytest.mark.parametrize("domain", [MESSAGES, COURSE])
def test_the_french_follows_french_typography_and_has_no_known_calque(domain: str) -> None:
    """A no-break space before : ; ? ! % and inside « », never a plain one; code spans, fields and URLs left as
    written."""
    problems = []
    for text in _french_strings(domain):
        prose = re.sub(r"https?://\S+|tcp://\S+", "URL", re.sub(r"`[^`]*`", "`code`", text))
        # not `!=` nor `D % H` "no space after «": "«[^\u00a0\u202f]",
        rules = {
            "a plain space before : ; ? ! % or »": r" (?:[:;?»]|!(?!=)|%(?! \w))",
            "no space before ; ? ! or »": "[^\\s\u00a0\u202f][;?!»](?!=)",
            "no space before a colon": "[^\\s\u00a0\u202f:]:(\\s|$)",
            "digits grouped by a plain space": r"\d \d{3}\b",
        }
        problems += [f"{rule}: {text[:90]!r}" for rule, pattern in rules.items() if re.search(pattern, prose)]
        problems += [f"calque {calque!r}: {text[:90]!r}" for calque in CALQUES if calque in text.lower()]
    assert not problems, "\n".join(problems)


def test_numbers_in_french_sentences_take_a_decimal_comma_and_code_keeps_its_point() -> None:
    from autograder.engine.inputs import describe_all
    from autograder.i18n import number_text

    set_language("fr")
    shown = number_text(0.027, ".2g"), number_text(2.5), number_text(1e-05), number_text(1.013, ".1%"), number_text(7)
    assert shown == ("0,027", "2,5", "1e-05", "101,3\u00a0%", "7")
    assert (
        describe_all({"x": torch.zeros(2, 3), "causal": True, "eps": 1e-6, "scale": 0.5})
        == "x float32 (2, 3), causal=True, eps=1e-06, scale=0.5"
    )
    with in_english():
        assert number_text(0.027, ".2g") == "0.027" and number_text(1.013, ".1%") == "101.3%"
    set_language("en")
    assert number_text(2.5) == "2.5"


def _placeholders(text: str) -> set[str]:
    """The names of a message's brace fields: {seconds:g} -> seconds ({{ and }} are literal braces)."""
    return {
        re.split(r"[.\[:!]", field, maxsplit=1)[0]
        for field in re.findall(r"(?<!\{)\{([^{}]*)\}", text.replace("{{", "").replace("}}", ""))
    }


@pytest.mark.parametrize("domain", [MESSAGES, COURSE])
def test_every_translation_keeps_the_placeholders_of_its_message(domain: str) -> None:
    """Each French form fills exactly the fields its English message has (a translated field name raises KeyError at
    .format); a form may also use a field the message's TRANSLATORS comment offers, as {name} of "your {short}"."""
    problems = []
    for message in read_catalogue(catalogue_path("fr", domain)):
        if not message.id:
            continue
        english = list(message.id) if isinstance(message.id, (tuple, list)) else [message.id]
        fields = set().union(*map(_placeholders, english))
        offered = fields | set().union(*(_placeholders(comment) for comment in message.auto_comments))
        for form in list(message.string) if isinstance(message.string, (tuple, list)) else [message.string]:
            found = _placeholders(form)
            if form and not (found == fields or (found <= offered and offered != fields)):
                problems.append(f"{english[0][:60]!r}: {sorted(found)} for {sorted(fields)}")
    assert not problems, "\n".join(problems)
