"""Languages a run searches in: their codes and names, and the person's choice of them.

A language is named by its ISO 639-1 code (`en`, `zh`, `de`...); people may also write its English
or native name (`German`, `Deutsch`). Only the languages `core/langdetect.py` can recognise are
known, because a planned language is checked by code (a task searched in it, a source is in it).

The person's choice (`languages:` in input.md or a config file, and the plan review) is a list of
entries: plain entries name exactly the languages to search; `+de` adds one to the planner's and
`-fr` removes one (`[+de]`: the planner's languages and German).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# code: (English name, native names and other spellings people write)
LANGUAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "en": ("English", ()),
    "zh": ("Chinese", ("中文", "汉语", "漢語", "mandarin", "zh-cn", "zh-tw", "zh-hans", "zh-hant")),
    "ja": ("Japanese", ("日本語",)),
    "ko": ("Korean", ("한국어",)),
    "de": ("German", ("deutsch",)),
    "fr": ("French", ("français", "francais")),
    "es": ("Spanish", ("español", "espanol", "castellano")),
    "it": ("Italian", ("italiano",)),
    "pt": ("Portuguese", ("português", "portugues", "pt-br")),
    "nl": ("Dutch", ("nederlands", "flemish")),
    "pl": ("Polish", ("polski",)),
    "sv": ("Swedish", ("svenska",)),
    "da": ("Danish", ("dansk",)),
    "no": ("Norwegian", ("norsk", "nb", "nn", "bokmål")),
    "fi": ("Finnish", ("suomi",)),
    "cs": ("Czech", ("čeština", "cestina")),
    "hu": ("Hungarian", ("magyar",)),
    "ro": ("Romanian", ("română", "romana")),
    "tr": ("Turkish", ("türkçe", "turkce")),
    "id": ("Indonesian", ("bahasa",)),
    "vi": ("Vietnamese", ("tiếng-việt",)),
    "ru": ("Russian", ("русский",)),
    "uk": ("Ukrainian", ("українська",)),
    "el": ("Greek", ("ελληνικά",)),
    "he": ("Hebrew", ("עברית",)),
    "ar": ("Arabic", ("العربية",)),
    "fa": ("Persian", ("farsi", "فارسی")),
    "hi": ("Hindi", ("हिन्दी",)),
    "th": ("Thai", ("ไทย",)),
}
_LOOKUP = {
    spelling.casefold(): code
    for code, (name, others) in LANGUAGES.items()
    for spelling in (code, name, *others)
}


def language_code(text: str) -> str:
    """The code of a language written as a code or a name (`de`, `German`, `Deutsch`, `de-AT`);
    raises ValueError naming the known codes when it is none of them."""
    key = " ".join(text.split()).casefold()
    code = _LOOKUP.get(key) or _LOOKUP.get(key.replace("_", "-").split("-")[0])
    if code is None:
        known = ", ".join(LANGUAGES)
        raise ValueError(f"{text.strip()!r} is not a known language (known codes: {known})")
    return code


def language_name(code: str) -> str:
    """The English name of a language code (the code itself when unknown)."""
    return LANGUAGES[code][0] if code in LANGUAGES else code


def describe(code: str) -> str:
    """A code as people read it: `German (de)`."""
    return f"{language_name(code)} ({code})" if code in LANGUAGES else code


@dataclass(frozen=True)
class LanguageChoice:
    """The person's say on the languages: exactly these (when any), plus `add`, minus `remove`."""

    exact: tuple[str, ...] = ()
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the person said nothing about languages."""
        return not (self.exact or self.add or self.remove)

    def wanted(self, planned: Iterable[str]) -> list[str]:
        """The languages to search, given the planner's, in order: kept ones first, then added."""
        base = list(self.exact) if self.exact else list(planned)
        out = [code for code in dict.fromkeys([*base, *self.add]) if code not in self.remove]
        return out

    def describe(self) -> str:
        """The choice as the person would write it: `en, de, +fr, -es`."""
        return ", ".join([*self.exact, *(f"+{c}" for c in self.add), *(f"-{c}" for c in self.remove)])


def parse_choice(entries: Iterable[str]) -> LanguageChoice:
    """The choice written as entries (`en`, `German`, `+de`, `-fr`; commas and spaces also split);
    raises ValueError naming the entry that is not a known language."""
    exact: list[str] = []
    add: list[str] = []
    remove: list[str] = []
    for entry in entries:
        for word in entry.replace(",", " ").split():
            sign, name = (word[0], word[1:]) if word[0] in "+-" else ("", word)
            if not name:
                raise ValueError(f"'{word}' names no language: write +de to add German, -fr to remove French")
            code = language_code(name)
            target = add if sign == "+" else remove if sign == "-" else exact
            if code not in target:
                target.append(code)
    clash = sorted(set(remove) & (set(exact) | set(add)))
    if clash:
        raise ValueError(f"{', '.join(clash)} is both asked for and removed")
    return LanguageChoice(tuple(exact), tuple(add), tuple(remove))
