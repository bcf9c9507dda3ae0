"""The estimate eval's cases: one archive review per content type on which the approximate token counter is far off.

Each case is a goal task over documents of one content type, fetched one by one: English prose (the baseline),
Chinese and Japanese text, HTML tables, pretty-printed JSON, base64 blobs and long ids (UUIDs and SHA-256 digests).
Every document has the same size by the approximate count (``DOC_TOKENS`` x 4 characters, `CHARS_PER_TOKEN`), so
every case reaches deepagents' trigger at the same document by that count; what differs is the true size. Text is
built from fixed word lists and seeded random draws: no download, the same seed gives the same case. Used in memory
(`harness.scenarios.generate.generated_case`: ``estimate-<type>``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import uuid

from harness.scenarios.haystack import CHARS_PER_TOKEN, COMPANIES, WORDS, prose_line
from harness.task_format import Step, render_task

CONTENT_TYPES = ("prose", "zh", "ja", "html", "json", "base64", "ids")
"""The content types, English prose (the baseline) first: each is the case ``estimate-<type>``."""
CONTENT_SAID = {
    "prose": "English prose",
    "zh": "Chinese text",
    "ja": "Japanese text",
    "html": "HTML tables",
    "json": "JSON records",
    "base64": "base64 blobs",
    "ids": "long ids (UUIDs, SHA-256)",
}
DOC_TOKENS = 1_500  # approximate tokens per document (6,000 characters)
DOCS = 20  # documents per case: with the `estimate` preset's window the approximate count passes its trigger at about
# the seventh, and prose passes the window by its exact count by the last when nothing compacts (a seeded fault)

_ZH = (
    "仓库 货物 运输 发票 合同 供应商 客户 订单 库存 检查 报告 审计 港口 集装箱 海关 清关 物流 司机 路线 延误 "
    "计划 会议 总结 付款 账户 余额 对账 差异 批准 采购 季度 预测 容量 燃料 保险 索赔 损坏 签收 调度 区域 "
    "转运 积压 优先 升级 审查 数据 系统 记录 日期 数量 价格 标准 质量 安全 部门 经理 员工 时间 地址 电话"
).split()
_ZH_GLUE = ("的", "在", "和", "已经", "需要", "根据", "关于", "以及", "对于", "通过")
_JA = (
    "倉庫 貨物 輸送 請求書 契約 取引先 顧客 注文 在庫 点検 報告書 監査 港湾 コンテナ 税関 通関 物流 運転手 経路 遅延 "
    "計画 会議 要約 支払い 口座 残高 照合 差異 承認 購買 四半期 予測 容量 燃料 保険 請求 損傷 受領 配車 地域 "
    "トラック スケジュール システム データ レポート チェック サプライヤー マネージャー"
).split()
_JA_GLUE = ("の", "は", "を", "に", "で", "と", "が", "について", "によって", "として")
_JA_END = ("しました。", "します。", "です。", "でした。", "を確認しました。", "が必要です。")


def _chinese(rng: random.Random, chars: int) -> str:
    lines: list[str] = []
    line = ""
    while sum(len(x) for x in lines) + len(line) < chars:
        clause = "".join(rng.choice(_ZH) + rng.choice(_ZH_GLUE) for _ in range(rng.randint(2, 4))) + rng.choice(_ZH)
        line += clause + rng.choice("，，。")
        if len(line) > 60:
            lines.append(line.rstrip("，") + "。")
            line = ""
    return "\n".join(lines)


def _japanese(rng: random.Random, chars: int) -> str:
    lines: list[str] = []
    while sum(len(x) + 1 for x in lines) < chars:
        parts = [rng.choice(_JA) + rng.choice(_JA_GLUE) for _ in range(rng.randint(3, 6))]
        lines.append("、".join(parts) + rng.choice(_JA) + rng.choice(_JA_END))
    return "\n".join(lines)


def _html(rng: random.Random, chars: int) -> str:
    out = ['<table class="ledger">', "<tr><th>date</th><th>reference</th><th>carrier</th><th>amount</th><th>status</th></tr>"]
    while sum(len(x) + 1 for x in out) < chars:
        out.append(
            f"<tr><td>2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}</td><td>INV-{rng.randint(10000, 99999)}</td>"
            f'<td>{rng.choice(COMPANIES)}</td><td class="num">{rng.randint(100, 99999):,}.{rng.randint(0, 99):02d}</td>'
            f"<td>{rng.choice(WORDS)}</td></tr>"
        )
    out.append("</table>")
    return "\n".join(out)


def _json(rng: random.Random, chars: int) -> str:
    records: list[dict[str, object]] = []
    while len(json.dumps(records, indent=2)) < chars:
        records.append(
            {
                "id": rng.randint(10**8, 10**9),
                "sku": f"SKU-{rng.randint(1000, 9999)}-{rng.choice('ABCDEFGH')}",
                "qty": rng.randint(1, 500),
                "price": round(rng.uniform(1, 5000), 2),
                "dims": [rng.randint(10, 200), rng.randint(10, 200), rng.randint(10, 200)],
                "in_stock": rng.random() < 0.5,
            }
        )
    return json.dumps(records, indent=2)


def _base64(rng: random.Random, chars: int) -> str:
    raw = base64.b64encode(rng.randbytes(chars * 3 // 4)).decode()
    return "attachment scan.png (base64):\n" + "\n".join(raw[i : i + 76] for i in range(0, len(raw), 76))


def _ids(rng: random.Random, chars: int) -> str:
    lines: list[str] = []
    while sum(len(x) + 1 for x in lines) < chars:
        trace = uuid.UUID(int=rng.getrandbits(128), version=4)
        digest = hashlib.sha256(rng.randbytes(16)).hexdigest()
        lines.append(f"trace={trace} span={rng.getrandbits(64):016x} blob=sha256:{digest}")
    return "\n".join(lines)


def _prose(rng: random.Random, chars: int) -> str:
    lines: list[str] = []
    while sum(len(x) + 1 for x in lines) < chars:
        lines.append(prose_line(rng))
    return "\n".join(lines)


_WRITERS = {
    "prose": _prose,
    "zh": _chinese,
    "ja": _japanese,
    "html": _html,
    "json": _json,
    "base64": _base64,
    "ids": _ids,
}


def content(kind: str, rng: random.Random, chars: int) -> str:
    """About ``chars`` characters (at least, at most one line more) of content type ``kind`` (`CONTENT_TYPES`)."""
    try:
        return _WRITERS[kind](rng, chars)
    except KeyError:
        raise ValueError(f"no content type {kind!r}; known: {', '.join(CONTENT_TYPES)}") from None


def estimate_scenario(kind: str, seed: int, *, docs: int = DOCS, doc_tokens: int = DOC_TOKENS) -> dict:
    """The case ``estimate-<kind>``: ``docs`` documents of ``doc_tokens`` approximate tokens each, all of content type
    ``kind``, fetched one by one, then a closing reply."""
    rng = random.Random(f"estimate:{kind}:{seed}")
    company = rng.choice(COMPANIES)
    doc_ids = [f"DOC-{i + 1:03d}" for i in range(docs)]
    documents = [
        {"id": d, "text": f"{d}: {company} archive, {CONTENT_SAID[kind]}\n" + content(kind, rng, doc_tokens * CHARS_PER_TOKEN)}
        for d in doc_ids
    ]
    steps = [Step(i + 1, "fetch_document", d) for i, d in enumerate(doc_ids)]
    steps.append(Step(len(steps) + 1, "reply"))
    intro = f"You are reviewing the {company} archive before it is migrated. Read every document in order."
    return {
        "id": f"estimate-{kind}",
        "kind": "goal",
        "description": f"{docs} documents of {CONTENT_SAID[kind]}, {doc_tokens:,} approximate tokens each: where does the "
        "trigger really fire, by an exact count?",
        "task": render_task(intro, steps),
        "documents": documents,
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in steps],
    }
