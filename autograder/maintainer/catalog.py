"""Keep the translation catalogues in step with the code and course.yaml: extract, merge into each .po, compile the .mo.

`python -m autograder.maintainer.catalog` (needs Babel, from the `test` extra) extracts every `_()`, `N_()` and
`ngettext()` message of the autograder package, every check's name (the first docstring line of each `test_*`
function of autograder/suites/) and every text of course.yaml, merges them into
autograder/locale/<lang>/LC_MESSAGES/{autograder,course}.po (translations kept, new entries empty, vanished ones
commented out; no `#:` file and line references, which would change with every edit), compiles each .mo, and lists
the entries still to translate (exit status 1 while there are any).
"""
import argparse
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from ..course.manifest import course_texts, find_root, load_course
from ..engine.static import check_docstrings
from ..i18n import COURSE, LANGUAGES, LOCALE_DIR, MESSAGES

PACKAGE = Path(__file__).resolve().parents[1]  # autograder/
TRANSLATED = [language for language in LANGUAGES if language != "en"]  # English is the source: no catalogue


def message_template(package: Path = PACKAGE) -> Catalog:
    """Every message marked with _(), N_() or ngettext() in package's Python files, with where it is used."""
    template = Catalog(project="attention-kit", domain=MESSAGES)
    found = extract_from_dir(package, method_map=[("**.py", "python")], comment_tags=("TRANSLATORS:",))
    for filename, line, message, comments, _context in found:
        template.add(message, locations=[(f"autograder/{filename}", line)], auto_comments=comments)
    for name, line, where in check_names(package):
        template.add(
            name, locations=[(where, line)], auto_comments=["the name of a check: the first line of its docstring"]
        )
    return template


def check_names(package: Path = PACKAGE) -> list[tuple[str, int, str]]:
    """(name, line, file) of every check of package's suites: the first docstring line of each `test_*` function,
    as engine/plugin.py check_name() reads it."""
    found = []
    for path in sorted((package / "suites").glob("**/test_*.py")):
        where = f"autograder/{path.relative_to(package).as_posix()}"
        found += [(name, line, where) for name, line in check_docstrings(path).values()]
    return found


def course_template(root: Path) -> Catalog:
    """Every text of root/course.yaml in English (titles, hints, self-test questions and answers)."""
    template = Catalog(project="attention-kit", domain=COURSE)
    for text, where in course_texts(load_course(root, translate=str)):
        template.add(text, auto_comments=[where])
    return template


def catalogue_path(language: str, domain: str, suffix: str = ".po") -> Path:
    """autograder/locale/<language>/LC_MESSAGES/<domain>.po (or .mo)."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}{suffix}"


def new_catalogue(language: str, domain: str) -> Catalog:
    """An empty catalogue for language, its header naming the kit (plural rule: one form for 0 and 1, another above)."""
    catalogue = Catalog(
        locale=language,
        domain=domain,
        project="attention-kit",
        version="1",
        fuzzy=False,
        msgid_bugs_address="the kit's maintainers",
        last_translator="the kit's maintainers",
        language_team=language,
        header_comment=f"# {domain}.po: the {language} texts of the attention kit ({domain} domain).",
    )
    catalogue.mime_headers = [*catalogue.mime_headers, ("Plural-Forms", "nplurals=2; plural=(n > 1);")]
    return catalogue


def read_catalogue(path: Path) -> Catalog:
    """The .po file at path, parsed."""
    with path.open("rb") as source:
        return read_po(source)


def untranslated(template: Catalog, catalogue: Catalog) -> list[str]:
    """The template's messages that catalogue lacks, leaves empty, or marks fuzzy (not yet checked by a translator)."""
    missing = []
    for message in template:
        if not message.id:
            continue
        found = catalogue.get(message.id)
        strings = () if found is None else found.string if isinstance(found.string, (tuple, list)) else (found.string,)
        if found is None or found.fuzzy or not strings or not all(strings):
            missing.append(message.id if isinstance(message.id, str) else message.id[0])
    return missing


def compiled(catalogue: Catalog) -> bytes:
    """catalogue as .mo bytes, fuzzy entries left out."""
    buffer = io.BytesIO()
    write_mo(buffer, catalogue)
    return buffer.getvalue()


def po_bytes(catalogue: Catalog) -> bytes:
    """catalogue as a .po file without `#:` locations: moving a message, or editing lines above it, changes nothing."""
    buffer = io.BytesIO()
    write_po(buffer, catalogue, width=100, no_location=True, omit_header=False, sort_output=False)
    return buffer.getvalue()


def update(root: Path) -> list[str]:
    """Merge the templates into every .po, compile every .mo; return `lang/domain: msgid` for each entry to
    translate."""
    todo = []
    for domain, template in ((MESSAGES, message_template()), (COURSE, course_template(root))):
        for language in TRANSLATED:
            path = catalogue_path(language, domain)
            catalogue = read_catalogue(path) if path.exists() else new_catalogue(language, domain)
            created = catalogue.creation_date
            catalogue.update(template, no_fuzzy_matching=True)  # a guessed translation would read as a real one
            catalogue.creation_date = created  # the header changes only when a translator edits it
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(po_bytes(catalogue))
            catalogue_path(language, domain, ".mo").write_bytes(compiled(read_catalogue(path)))
            todo += [f"{language}/{domain}: {message[:70]!r}" for message in untranslated(template, catalogue)]
    return todo


def main(argv: list[str] | None = None) -> int:
    """The maintainer's command: update and compile the catalogues, list what remains to translate; exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder.maintainer.catalog", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--root", type=Path, default=None, help="the kit's folder (default: the one holding course.yaml)"
    )
    todo = update(parser.parse_args(argv).root or find_root(Path.cwd()))
    for entry in todo:
        print(f"to translate: {entry}")
    print(f"catalogues updated and compiled in {LOCALE_DIR}; {len(todo)} entries to translate")
    return 1 if todo else 0


if __name__ == "__main__":
    sys.exit(main())
