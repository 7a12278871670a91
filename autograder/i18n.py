"""The language of the kit: gettext catalogues for its own messages and for the texts of course.yaml, English by
default.

Mark a message with `_("... {x} ...").format(x=...)`; mark a constant that is translated later with `N_(...)`; write a
number inside a message with `number_text(x, ".2g")`, which follows the language's decimal separator.
The catalogues are autograder/locale/<lang>/LC_MESSAGES/{autograder,course}.po, compiled to .mo files that
`python -m autograder.maintainer.catalog` keeps in step with the code and with course.yaml.
"""
import contextlib
import gettext
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "fr")  # English is the source language: it has no catalogue
DEFAULT = "en"
MESSAGES, COURSE = "autograder", "course"  # the two domains: the kit's own messages, the texts of course.yaml
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # the order gettext itself reads them in

_installed: dict[str, gettext.NullTranslations] = {}  # domain -> translation, filled on first use


def language_from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The language the locale asks for (LANGUAGE, LC_ALL, LC_MESSAGES, then LANG), when the kit has it; else
    English."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            for entry in value.split(":"):  # LANGUAGE may list several, best first: fr_CA:fr:en
                code = entry.split(".")[0].split("@")[0].split("_")[0].lower()
                if code in LANGUAGES:
                    return code
            return DEFAULT
    return DEFAULT


def set_language(language: str | None = None) -> str:
    """Speak language from now on (None: the locale's); return the language chosen."""
    chosen = language or language_from_environment()
    if chosen not in LANGUAGES:
        raise ValueError(f"unknown language {chosen!r}: the kit speaks {', '.join(LANGUAGES)}")
    for domain in (MESSAGES, COURSE):
        _installed[domain] = gettext.translation(domain, LOCALE_DIR, languages=[chosen], fallback=True)
    return chosen


@contextlib.contextmanager
def in_english() -> Iterator[None]:
    """Messages made inside the block are English, whatever the language: for comparing failures by their wording."""
    saved = _catalogue(MESSAGES)
    _installed[MESSAGES] = gettext.NullTranslations()
    try:
        yield
    finally:
        _installed[MESSAGES] = saved


def _catalogue(domain: str) -> gettext.NullTranslations:
    """The installed translation of domain, chosen from the locale on first use."""
    if domain not in _installed:
        set_language()
    return _installed[domain]


def _(message: str) -> str:
    """message in the current language (itself in English, or when the catalogue lacks it)."""
    return _catalogue(MESSAGES).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form for count, in the current language."""
    return _catalogue(MESSAGES).ngettext(singular, plural, count)


def number_text(value: float, spec: str = "g") -> str:
    """value written with the format spec (`g`, `.2g`, `.3f`) and the current language's decimal separator: 0.25, 0,25.

    For numbers in the kit's sentences; numbers inside code, tensors and lists (`[0.12, 0.11]`, `scale=5.0`) stay as
    code."""
    if spec.endswith("%"):  # `.1%`: a share, written with the language's space before the sign
        # TRANSLATORS: a percentage; French puts a no-break space before the sign
        return _("{percent}%").format(percent=number_text(100 * value, spec[:-1] + "f"))
    # TRANSLATORS: the decimal separator of the numbers in the kit's messages (French: a comma)
    return format(value, spec).replace(".", _("."))


def N_(message: str) -> str:  # noqa: N802 - the name extractors look for
    """message unchanged: marks a constant for the catalogue, translated later by `_(constant)`."""
    return message


def course_text(text: str) -> str:
    """A text of course.yaml (title, hint, self-test question or answer) in the current language."""
    return _catalogue(COURSE).gettext(text) if text else text  # gettext("") is the catalogue's header
