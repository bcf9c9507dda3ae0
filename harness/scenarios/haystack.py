"""The text the generated cases are made of: archive documents of prose lines, ledgers, and the word lists and codes
facts are built from (shared by `harness.scenarios.generate` and `harness.scenarios.probes`)."""

from __future__ import annotations

import random

CHARS_PER_TOKEN = 4  # count_tokens_approximately's ratio
SHIPPED_SEED = 7  # the seed of the shipped files (`harness generate` default)

WORDS = (
    "shipment invoice carrier pallet manifest warehouse customs clearance freight quote "
    "container berth schedule delay supplier contract renewal audit inventory reorder "
    "threshold forklift inspection dock tariff routing consignment ledger balance "
    "reconciliation discrepancy approval purchase order vendor quarterly forecast "
    "capacity surcharge fuel insurance claim damage receipt signature dispatch "
    "regional depot transfer backlog priority escalation review summary meeting"
).split()
PLACES = ("north", "south", "east", "west", "harbor", "river", "upper", "lower")
THINGS = (
    ("access code", "vault"),
    ("serial number", "backup generator"),
    ("badge number", "night-shift supervisor"),
    ("tracking number", "refrigerated container"),
    ("account number", "customs broker"),
)
CODEWORDS = ("KESTREL", "HERON", "LARCH", "OSPREY", "MARLIN", "CEDAR", "FALCON", "TUNDRA", "BASALT", "EMBER")
COMPANIES = ("Halvorsen Freight", "Brightwater Logistics", "Okafor & Sons Shipping", "Teller Cold Chain", "Marisol Imports")


def prose_line(rng: random.Random) -> str:
    """One sentence of 11 to 15 logistics words: filler that states nothing."""
    words = [rng.choice(WORDS) for _ in range(rng.randint(11, 15))]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def document(rng: random.Random, doc_id: str, company: str, tokens: int, inserts: dict[int, str]) -> str:
    """An archive document of about ``tokens`` approximate tokens: a header line, prose lines, and ``inserts``
    (line index -> sentence) placed among them."""
    lines = [
        f"{doc_id}: {company} archive, {rng.choice(['memo', 'letter', 'report', 'minutes'])} {rng.randint(1, 28)}/{rng.randint(1, 12)}/2026"
    ]
    budget = tokens * CHARS_PER_TOKEN
    while sum(len(x) + 1 for x in lines) < budget:
        lines.append(prose_line(rng))
    for at, sentence in sorted(inserts.items()):
        lines.insert(min(at, len(lines) - 1), sentence)
    return "\n".join(lines)


def ledger(rng: random.Random, name: str, company: str, rows: int) -> str:
    """A markdown ledger table of ``rows`` invoice lines and a total."""
    out = [f"# Ledger {name} ({company})", "", "| date | reference | counterparty | amount |", "|---|---|---|---|"]
    for _ in range(rows):
        out.append(
            f"| 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} | INV-{rng.randint(10000, 99999)} | "
            f"{rng.choice(COMPANIES)} {rng.choice(WORDS)} | {rng.randint(100, 99999):,}.{rng.randint(0, 99):02d} |"
        )
    out.append(f"| total | | | {rng.randint(100000, 999999):,}.00 |")
    return "\n".join(out)


# The probe families' facts (`harness.scenarios.probes`): keys (with {place}) and values (with {n}, {h}, {w}).
CONSTRAINTS = (
    ("maximum pallet weight for the {place} depot", "{n}-kg"),
    ("maximum batch size for the {place} importer", "{n}-rows"),
    ("latest dispatch cutoff at the {place} dock", "{h}-00"),
    ("minimum reorder threshold for the {place} warehouse", "{n}-units"),
)
DECISIONS = (
    ("billing database", ("pg-16", "mysql-8", "mariadb-11", "sqlite-3", "oracle-19")),
    ("primary carrier for the {place} route", ("dhl-express", "ups-ground", "fedex-freight", "maersk-line")),
    ("cold-storage vendor", ("teller-cold", "arctic-hold", "frostline", "polar-depot")),
    ("invoice archive format", ("pdf-a", "tiff-g4", "xml-ubl", "csv-plain")),
)
NEXT_STEPS = ("reconcile-ledgers", "audit-freight", "update-manifests", "review-tariffs", "close-backlog", "sign-receipts")
PREFERENCES = (
    ("report format", ("markdown", "csv", "html", "plaintext")),
    ("date format", ("iso-8601", "dd-mm-yyyy", "mm-dd-yyyy")),
    ("currency display", ("eur-symbol", "usd-code", "gbp-code")),
)
ROLES = (
    ("primary site", "backup site"),
    ("main depot", "overflow depot"),
    ("lead supplier", "standby supplier"),
    ("home terminal", "relief terminal"),
)
ATTRIBUTES = ("access code", "gate code", "account number", "dock code")
# Entity names never said by the haystack's prose (lowercase words, company names, DOC ids, dates, digit-CODEWORD codes)
ENTITIES = ("ORBIT", "VEGA", "NOVA", "ATLAS", "LYRA", "RIGEL", "ALTAIR", "SIRIUS")
RULES = (
    ("commit prefix", "{w}-OPS"),
    ("ticket prefix for the {place} depot", "{w}-{n}"),
    ("approval signer for the {place} contracts", "{w}-DESK"),
    ("escalation channel", "ops-{w}"),
)
