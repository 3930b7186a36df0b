"""A hand-built research run: TaskDoc plus a temp workspace whose archive files carry real hashes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from deepresearch.state.model import (
    Conflict,
    Dimension,
    Fact,
    FrontMatter,
    Priority,
    Severity,
    Source,
    Task,
    TaskDoc,
    TaskStatus,
    Verified,
)

# (id, title, url, type, published, authority, archive)
SOURCES = [
    ("S01", "Global EV Outlook 2025", "https://www.iea.org/reports/global-ev-outlook-2025", "official",
     "2025-05-14", 1.0, "assets/web/S01-iea-org.md"),
    ("S02", "Electric car sales hit a record in 2024", "https://www.reuters.com/autos/ev-sales-2024",
     "news", "2025-01-15", 0.7, "assets/web/S02-reuters-com.md"),
    ("S03", "Lithium-ion battery pack prices fall 20%", "https://about.bnef.com/blog/battery-prices-2024",
     "industry", "2024-12-10", 0.8, "assets/web/S03-about-bnef-com.md"),
    ("S04", "Battery cost teardown <2024> & \"notes\"", "https://batteryforum.example.org/t/cost",
     "forum", "2024-11-02", 0.5, "assets/web/S04-batteryforum-example-org.md"),
    ("S05", "Life-cycle emissions of electric cars", "https://doi.org/10.1000/lca-ev",
     "peer-reviewed", "2023-06-01", 0.9, "assets/pdf/S05-doi-org.pdf"),
    ("S06", "电动汽车充电基础设施发展报告", "https://www.gov.cn/zhengce/ev-charging",
     "official", "2025-03-01", 1.0, "assets/web/S06-gov-cn.md"),
    ("S07", "An uncited blog post", "https://blog.example.com/ev", "blog", "", 0.5,
     "assets/web/S07-blog-example-com.md"),
]  # fmt: skip

# (id, statement, sources, verified, task)
FACTS = [
    ("Fact-001", "17 million electric cars were sold worldwide in 2024.", ["S01"], Verified.YES, "E1"),
    ("Fact-002", "Electric cars were over 20% of new car sales in 2024.", ["S01", "S02"], Verified.YES, "E1"),
    ("Fact-003", "Battery pack prices fell 20% to $115/kWh in 2024.", ["S03"], Verified.YES, "E2"),
    ("Fact-004", "Pack prices fell only about 8% in 2024.", ["S04"], Verified.YES, "E2"),
    ("Fact-005", "Electric cars emit less over their life cycle.", ["S05"], Verified.YES, "E3"),
    ("Fact-006", "中国公共充电桩超过300万台。", ["S06"], Verified.YES, "E3"),
    ("Fact-007", "Charging is cheaper at home.", ["S07"], Verified.NO, "E3"),
]  # fmt: skip


SALES_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="480" height="200" font-family="sans-serif">
<rect width="480" height="200" fill="#fff"/>
<g fill="#0b5cad"><rect x="40" y="150" width="60" height="30"/><rect x="140" y="120" width="60" height="60"/>
<rect x="240" y="90" width="60" height="90"/><rect x="340" y="40" width="60" height="140"/></g>
<g font-size="13" text-anchor="middle"><text x="70" y="196">2021</text><text x="170" y="196">2022</text>
<text x="270" y="196">2023</text><text x="370" y="196">2024</text></g>
<text x="240" y="24" font-size="15" text-anchor="middle">Electric car sales (million)</text>
</svg>
"""


@dataclass
class Run:
    """A workspace folder and the TaskDoc describing it."""

    root: Path
    doc: TaskDoc

    def archive(self, source_id: str) -> Path:
        source = self.doc.source(source_id)
        assert source is not None
        return self.root / source.archive


def build_doc() -> TaskDoc:
    """The TaskDoc of the hand-built run (no files)."""
    sources = [
        Source(sid, title, url, kind, published, "2025-06-01T09:30:00Z", auth, archive)
        for sid, title, url, kind, published, auth, archive in SOURCES
    ]
    facts = [Fact(fid, text, list(srcs), verified=ver, task=task) for fid, text, srcs, ver, task in FACTS]
    return TaskDoc(
        front=FrontMatter(id="run-ev", question="How fast is the electric car market growing?"),
        dimensions=[Dimension("D1", "Market size"), Dimension("D2", "Costs"), Dimension("D3", "Impact")],
        tasks=[
            Task("E1", "Size the market", ["D1"], Priority.HIGH, [], TaskStatus.DONE),
            Task("E2", "Battery costs", ["D2"], Priority.HIGH, [], TaskStatus.DONE),
            Task("E3", "Emissions and charging", ["D3"], Priority.MEDIUM, ["E1"], TaskStatus.DONE),
        ],
        facts=facts,
        sources=sources,
        conflicts=[
            Conflict(
                "CONF-1",
                "How much battery prices fell in 2024",
                ["Fact-003", "Fact-004"],
                Severity.HIGH,
                "Fact-003",
                # the reflector's words, then the weights code writes (pipeline/conflicts.py)
                "BNEF's survey outweighs a forum teardown. — evidence weight: Fact-003 W=0.88, "
                "Fact-004 W=0.70; Fact-003 preferred, margin 0.18",
            ),
            Conflict("CONF-2", "Home vs public charging cost", ["Fact-007", "Fact-006"], Severity.MEDIUM),
        ],
    )


def make_run(root: Path) -> Run:
    """Write every archive file of the hand-built run under `root` and record its SHA-256."""
    doc = build_doc()
    for source in doc.sources:
        path = root / source.archive
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {source.title}\n\nArchived text of {source.url}.\n", encoding="utf-8")
        source.sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    chart = root / "assets" / "images" / "sales.svg"
    chart.parent.mkdir(parents=True, exist_ok=True)
    chart.write_text(SALES_SVG, encoding="utf-8")
    return Run(root, doc)


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return make_run(tmp_path)


CLEAN_EN = """\
# The electric car market in 2025

## Executive summary

Electric cars are now a mass market: 17 million were sold in 2024 [S01], more than a fifth of all new
cars [S01][S02]. Confidence is high for sales figures and medium for costs.

## Market size

| Year | Sales | Share |
| --- | --- | --- |
| 2024 | 17 million [S01] | 20% [S01][S02] |

Key points:

- Sales reached 17 million in 2024 [S01].
- Reuters reported the same record, with a share above 20% [S02].

## Costs

Battery pack prices fell 20% to $115/kWh in 2024 according to BNEF's survey [S03], while a forum
teardown put the fall at about 8% [S04]. The survey is preferred: it covers more packs (weight 0.88
against 0.70) [S03].

## Impact

Life-cycle emissions of electric cars are lower than those of petrol cars [S05]. Code such as
`https://example.com/api [S99]` is not a citation.

```text
curl https://example.com/raw [S42]
```

![Electric car sales by year](assets/images/sales.svg)

*Figure 1: Electric car sales by year.*
"""

CLEAN_ZH = """\
# 电动汽车市场

## 摘要

2024年全球电动汽车销量达到1700万辆[S01]。电动汽车占新车销量的20%以上[S01][S02]。

## 充电

中国公共充电桩超过300万台[S06]。充电网络仍在快速扩张；政府继续出台支持政策[S06]。

## 成本分歧

彭博新能源财经的调查显示电池包价格下降了20%[S03]，而论坛拆解认为只下降约8%[S04]。调查的证据权重更高[S03]。
"""
