"""Which language a text is written in, by code: an archived page's or a search query's.

First the writing system: the script with the most characters decides (a CJK character counts
as a word's worth, three letters of an alphabet as one), so a Chinese page quoting "CATL" is
Chinese and an English page naming 宁德时代 is English. Kana make Han text Japanese, Hangul is
Korean; Cyrillic, Greek, Hebrew, Arabic, Devanagari and Thai name their language (Ukrainian and
Persian by their own letters). Latin text is scored per language: its most frequent words, its
own letters (ß, ñ, ł, ø ...) and word endings (-ung, -ción, -zione ...), each weighed by how many
languages share it; a tie goes to the more widely used language. A short query may have no such
evidence: then the answer is "" (unknown), unless `among` limits the candidates (a run's planned
languages) and the script leaves one.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection

SAMPLE_CHARS = 30_000  # a page's language shows in its first pages of text

_SCRIPTS: dict[str, tuple[str, float]] = {
    # script: (character class, weight of one character)
    "han": ("\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff", 1.0),
    "kana": ("\u3040-\u30ff\u31f0-\u31ff", 1.0),
    "hangul": ("\uac00-\ud7af\u1100-\u11ff\u3130-\u318f", 1.0),
    "cyrillic": ("\u0400-\u04ff", 1 / 3),
    "greek": ("\u0370-\u03ff", 1 / 3),
    "hebrew": ("\u0590-\u05ff", 1 / 3),
    "arabic": ("\u0600-\u06ff\u0750-\u077f", 1 / 3),
    "devanagari": ("\u0900-\u097f", 1 / 3),
    "thai": ("\u0e00-\u0e7f", 1 / 3),
    "latin": ("A-Za-z\u00c0-\u024f\u1e00-\u1eff", 1 / 3),
}
_SCRIPT_RE = {name: re.compile(f"[{chars}]") for name, (chars, _weight) in _SCRIPTS.items()}
# The languages each script can be (the first is the default).
SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "han": ("zh", "ja"),
    "kana": ("ja",),
    "hangul": ("ko",),
    "cyrillic": ("ru", "uk"),
    "greek": ("el",),
    "hebrew": ("he",),
    "arabic": ("ar", "fa"),
    "devanagari": ("hi",),
    "thai": ("th",),
}
_UKRAINIAN = re.compile("[іїєґІЇЄҐ]")
_PERSIAN = re.compile("[پچژگ]")

# Latin-script languages, the most widely used first (a tie goes to the first): frequent words
# (function words, and words research queries use).
_WORDS: dict[str, str] = {
    "en": "the of and to in is for on with by as at from that this are was be it an or which how what why "
    "who has have its not but than more were been will their they also between after about into over "
    "under per vs market markets sales share price prices growth report statistics data production "
    "capacity demand supply cost costs revenue industry forecast policy annual global world total "
    "number rate suppliers supplier manufacturers battery batteries cells energy query germany france "
    "spain italy china japan europe european union united states kingdom chinese japanese german",
    "de": "der die das und in den von zu mit ist im für auf nicht ein eine einer eines einem als auch es "
    "an des dem sich bei nach aus wie werden wird wurde sind oder um über noch nur bis zum zur vom "
    "durch gegen jahr jahren prozent deutschland markt marktanteil anteil absatz umsatz preis preise "
    "hersteller zahlen laut",
    "fr": "le la les des de du et en un une est pour dans que qui sur par au aux avec ne pas plus sont ce "
    "cette ses leur mais été selon entre marché ventes prix part production année ans france chiffres "
    "fabricants d l",
    "es": "el la los las de del y en que un una por para con es se no al lo como más su sus entre sobre "
    "año años mercado ventas precio precios cuota producción según españa fabricantes cifras",
    "it": "il lo la gli le di del della dei delle e è in un una per con che non sono da al alla nel nella "
    "anche più tra mercato vendite prezzo prezzi quota produzione anno anni italia secondo l",
    "pt": "o a os as de do da dos das e em um uma para com que não por no na mais ao é são entre sobre "
    "mercado vendas preço preços produção ano anos brasil segundo fabricantes",
    "nl": "de het een en van in is op te dat die met voor zijn niet aan er ook als bij door naar om over "
    "wordt werd markt verkoop prijs prijzen jaar nederland volgens",
    "pl": "i w z na się nie do to że jest o od przez dla jak po oraz jego rynek sprzedaż cena ceny rok "
    "roku polska według",
    "sv": "och i att det som en på är av för med till den har de inte om ett var från marknad "
    "försäljning pris år sverige enligt",
    "da": "og i at det en til er som på de med for af ikke den har et var fra marked salg pris år "
    "danmark ifølge",
    "no": "og i at det en til er som på de med for av ikke den har et var fra marked salg pris år norge "
    "ifølge",
    "fi": "ja on ei se että oli ovat mutta kun myös kuin tai vuonna vuoden markkinat myynti hinta suomi "
    "mukaan",
    "cs": "a se na v je že s z do to o jako ale pro by jsou byl trh prodej cena rok roku podle",
    "hu": "a az és hogy nem is egy meg de van ez el ki volt vagy mint piac eladás ár év szerint",
    "ro": "și de la în a cu pe din care este nu o un să pentru mai sunt piața vânzări preț anul potrivit",
    "tr": "ve bir bu da de için ile olarak çok daha gibi olan en ama pazar satış fiyat yıl göre",
    "id": "yang dan di ke dari ini itu untuk dengan pada adalah dalam tidak akan juga atau pasar "
    "penjualan harga tahun menurut",
    "vi": "của và là các có trong được cho những với không một người này đã thị trường năm theo",
}
# Letters of their own (each weighed by how many of these languages use it).
_LETTERS: dict[str, str] = {
    "de": "äöüß",
    "fr": "éèêàçôûëïîœâù",
    "es": "ñáíóúé¿¡ü",
    "it": "àèéìòù",
    "pt": "ãõçáâêôéíóúà",
    "pl": "ąćęłńóśźż",
    "sv": "åäö",
    "da": "æøå",
    "no": "æøå",
    "fi": "äö",
    "cs": "ěščřžýáíéůúďťň",
    "hu": "őűáéíóöúü",
    "ro": "ăâîșşțţ",
    "tr": "çğıöşü",
    "vi": "ăâđêôơư" + "".join(chr(c) for c in range(0x1EA0, 0x1EFA)),
}
# Word shapes typical of a language (matched in each word).
_SHAPES: dict[str, str] = {
    "en": r"ing$|ness$|ship$|ly$|ies$|^th|^wh|ough",
    "de": r"sch|ungen$|ung$|keit|heit|lich$|schaft|tz|pf|ß",
    "fr": r"eaux?$|eux$|aux$|^qu|ment$|ais$|ées?$",
    "es": r"ción$|ciones$|dad$|mente$|ñ",
    "it": r"zione$|zioni$|ità$|^gli$|cch|zz|ggi",
    "pt": r"ção$|ções$|lh|ão$|mente$",
    "nl": r"ij|heid$|oo|aa|uu|oe",
    "pl": r"cz|sz|rz|ów$|ych$|ść",
    "fi": r"kk|ää|ii|llä$|ssä$|stä$|lla$|ssa$|sta$",
    "cs": r"ost$|ní$|ř",
    "hu": r"gy|zs|ség$|ő",
    "ro": r"ți|ului$|ilor$|ește$",
    "tr": r"lar$|ler$|ı|ğ",
    "id": r"kan$|nya$|^meng|^peng|^ber",
}
LATIN = tuple(_WORDS)


def _weights(table: dict[str, set[str]]) -> dict[str, dict[str, float]]:
    """Each item's weight per language: 1 / the number of languages that share it."""
    sharing = Counter(item for items in table.values() for item in items)
    return {lang: {item: 1 / sharing[item] for item in items} for lang, items in table.items()}


_WORD_WEIGHT = _weights({lang: set(words.split()) for lang, words in _WORDS.items()})
_LETTER_WEIGHT = _weights({lang: set(letters) for lang, letters in _LETTERS.items()})
_SHAPE_RE = {lang: re.compile(pattern) for lang, pattern in _SHAPES.items()}
_TOKEN = re.compile(r"[^\W\d_]+")


def script_of(text: str) -> str:
    """The text's main writing system (`latin`, `han`, `kana`...; "" when it has no letters)."""
    weights = {name: len(_SCRIPT_RE[name].findall(text)) * weight for name, (_c, weight) in _SCRIPTS.items()}
    if weights["kana"] and weights["kana"] >= 0.05 * (weights["kana"] + weights["han"]):
        weights["kana"] += weights.pop("han")  # kana in Han text: Japanese
    best = max(weights, key=lambda name: weights[name])
    return best if weights[best] > 0 else ""


def latin_scores(text: str) -> dict[str, float]:
    """Each Latin-script language's evidence in the text: words, letters and word shapes."""
    scores = dict.fromkeys(LATIN, 0.0)
    for token in _TOKEN.findall(text):
        for lang in LATIN:
            scores[lang] += _WORD_WEIGHT[lang].get(token, 0.0)
            if lang in _SHAPE_RE and _SHAPE_RE[lang].search(token):
                scores[lang] += 0.5
    for char, count in Counter(text).items():
        for lang, weights in _LETTER_WEIGHT.items():
            if char in weights:
                scores[lang] += count * weights[char] * 0.5
    return scores


def _non_latin(script: str, text: str, among: Collection[str] | None) -> str:
    options = SCRIPT_LANGUAGES.get(script, ())
    if script == "cyrillic" and _UKRAINIAN.search(text):
        options = ("uk", "ru")
    elif script == "arabic" and _PERSIAN.search(text):
        options = ("fa", "ar")
    if among is not None:
        options = tuple(code for code in options if code in among)
    return options[0] if options else ""


def detect_language(text: str, among: Collection[str] | None = None) -> str:
    """The language code of `text` ("" when it shows none); `among`: only these codes can be the
    answer, and one that is the only candidate of the text's script is taken on that alone."""
    sample = unicodedata.normalize("NFKC", text[:SAMPLE_CHARS]).lower()
    script = script_of(sample)
    if script != "latin":
        return _non_latin(script, sample, among)
    candidates = [lang for lang in LATIN if among is None or lang in among]
    if not candidates:
        return ""
    if among is not None and len(candidates) == 1:
        return candidates[0]  # the script leaves one candidate
    scores = latin_scores(sample)
    best = max(candidates, key=lambda lang: scores[lang])  # a tie goes to the more widely used
    return best if scores[best] > 0 else ""
