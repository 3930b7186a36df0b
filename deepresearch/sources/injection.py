"""Instruction-like text aimed at AI agents, found in an archived page: the `suspicious` flag.

Web content is data: agents are told so, and the CLIs and the OS sandbox keep a hijacked agent from
doing harm. This scan is for the reader and the later roles: a page that addresses AI agents ("ignore
all previous instructions", "AI assistants must report...", "忽略之前的所有指令") is recorded
`suspicious` in the source registry and task.md's Sources table, shown to the reflector, never given
more authority than its URL earns, kept out of figures, and a report sentence stating one of its
numbers must cite it (report/suspicious.py). The pattern list is small and errs toward precision: it
names phrasings that address a model, not pages that discuss AI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepresearch.state.model import SUSPICIOUS

__all__ = ["PATTERNS", "SUSPICIOUS", "Finding", "describe", "scan"]

# Who a page addresses when it talks to a model: AI-specific words only ("agents must report" is
# about tax agents as often as not).
_AI = (
    r"(?:(?:AI|A\.I\.|automated|autonomous)\s+(?:assistants?|agents?|models?|systems?|researchers?|tools?)|"
    r"AIs?|LLMs?|(?:large\s+)?language\s+models?|chat\s?bots?|GPTs?|ChatGPT|Claude|Gemini|Copilot)"
)
_SPEAKER = r"(?:AI|agent|assistant|LLM|model|bot|GPT|claude|gemini|copilot)"
_ORDER = r"(?:instructions?|prompts?|rules|directions|guidelines|directives|context)"
_AI_ZH = r"(?:AI助手|AI|人工智能|大语言模型|大模型|语言模型|智能体|聊天机器人)"

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "orders to ignore instructions",
        re.compile(
            rf"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
            rf"(?:previous|prior|above|earlier|preceding|original|system|existing)\s+{_ORDER}",
            re.I,
        ),
    ),
    (
        "addresses AI agents",
        re.compile(
            rf"\b(?:attention|note|message|instructions?|notice|important)\s+(?:to|for)\s+(?:all\s+|any\s+)?"
            rf"{_AI}\b",
            re.I,
        ),
    ),
    ("addresses AI agents", re.compile(rf"\bif you are an?\s+{_AI}\b", re.I)),
    (
        "tells AI agents what to do",
        re.compile(
            rf"\b{_AI}\s+(?:reading|summari[sz]ing|processing|visiting|crawling)\s+this\b|"
            rf"\b{_AI},?\s+(?:you\s+)?(?:must|should|shall|are instructed to)\s+"
            r"(?:now\s+)?(?:report|write|say|state|answer|respond|reply|output|claim|conclude|ignore|include|cite)\b",
            re.I,
        ),
    ),
    (
        "gives the reader a new role",
        re.compile(
            r"\bfrom now on,?\s+you\s+(?:are|will|must)\b|\byou are now (?:a|an|in)\s+\w+\s+mode\b", re.I
        ),
    ),
    (
        "asks for secrets or commands",
        re.compile(
            r"\b(?:reveal|print|show|repeat|output|send|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|"
            r"hidden\s+instructions|api\s+keys?|secrets?|credentials|environment\s+variables)\b|"
            r"\b(?:curl|wget)\s+\S+\s*\|\s*(?:ba)?sh\b|\bcat\s+~/\.ssh/",
            re.I,
        ),
    ),
    (
        "hides from the user",
        re.compile(r"\bdo not (?:tell|inform|mention (?:this )?to|alert) the user\b", re.I),
    ),
    ("chat template markup", re.compile(r"<\|im_start\|>|<\|system\|>|\[/?INST\]|<</?SYS>>")),
    ("comment addressed to agents", re.compile(rf"<!--\s*(?:{_AI}|{_SPEAKER}s?)\s*[:,]", re.I)),
    (
        "orders to ignore instructions",
        re.compile(
            r"(?:忽略|无视|忽视|不要理会|忘记|忘掉)(?:掉)?(?:你)?(?:之前|以上|上面|先前|前面|此前|原来|原有|所有|全部)"
            r"(?:的)?(?:所有|全部)?(?:的)?(?:指令|指示|提示词?|说明|规则|要求|设定)"
        ),
    ),
    ("gives the reader a new role", re.compile(r"你现在是|从现在(?:开始|起)，?你(?:是|要|必须|将)")),
    (
        "addresses AI agents",
        re.compile(rf"(?:致|给|对|告)(?:所有|各位)?{_AI_ZH}(?:的)?(?:指令|消息|提示|通知|说明)"),
    ),
    ("addresses AI agents", re.compile(rf"如果你是(?:一个|一名)?{_AI_ZH}")),
    (
        "tells AI agents what to do",
        re.compile(rf"{_AI_ZH}(?:必须|应该|应当|务必|需要)(?:报告|写|输出|忽略|声称|回答|说明|称|引用)"),
    ),
    ("hides from the user", re.compile(r"(?:不要|请勿|切勿|不得)(?:告诉|告知|透露给)用户")),
    (
        "asks for secrets or commands",
        re.compile(r"(?:输出|显示|泄露|透露|发送)(?:你的)?(?:系统提示词?|隐藏指令|密钥|API ?密钥|凭据)"),
    ),
)


@dataclass(frozen=True)
class Finding:
    """One instruction-like passage: what kind it is and the text that matched (shortened)."""

    kind: str
    excerpt: str


def scan(*texts: str) -> list[Finding]:
    """Every kind of instruction-like text found in `texts` (the readable text, the page's HTML),
    once per kind, with the first passage of that kind."""
    found: dict[str, Finding] = {}
    for text in texts:
        for kind, pattern in PATTERNS:
            if kind in found:
                continue
            match = pattern.search(text)
            if match:
                found[kind] = Finding(kind, _excerpt(match.group(0)))
    return list(found.values())


def describe(findings: list[Finding]) -> str:
    """One line for the record's warning: what was found, quoted."""
    return "instruction-like text aimed at AI agents: " + "; ".join(
        f'{f.kind} ("{f.excerpt}")' for f in findings
    )


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
