"""``harness generate``, ``variants``: the data the harness runs on."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.cli.options import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    _number_list,
)


def cmd_generate(args: argparse.Namespace) -> int:
    from harness.scenarios.generate import generate

    if args.what == "needle":
        return _generate_needle(args)
    if args.what == "probes":
        return _generate_probes(args)
    out = args.out or "datasets"
    for name, n in generate(out, seed=args.seed).items():
        print(f"wrote {Path(out) / name}: {n} {'messages' if name.startswith('conversations/') else 'scenarios'}")
    return EXIT_OK


def _needle_grid_options(args: argparse.Namespace) -> tuple[list[int], list[float]]:
    from harness.errors import ConfigError
    from harness.scenarios.generate import niah_depths, niah_lengths

    if not args.out or not args.out.endswith(".jsonl"):
        raise ConfigError("--out: harness generate needle writes one scenario file; give a path ending in .jsonl")
    ranged = (args.length_min, args.length_max, args.length_steps)
    if args.lengths and any(v is not None for v in ranged):
        raise ConfigError("--lengths and --length-min/--length-max/--length-steps are alternatives: give one")
    if args.lengths:
        lengths = _number_list(args.lengths, "--lengths", int)
    elif all(v is not None for v in ranged):
        try:
            lengths = niah_lengths(*ranged)
        except ValueError as exc:
            raise ConfigError(f"--length-min/--length-max/--length-steps: {exc}") from None
    else:
        raise ConfigError("give --lengths, or all of --length-min, --length-max and --length-steps")
    for n in lengths:
        if not 1_000 <= n <= 1_000_000:
            raise ConfigError(f"--lengths: {n} is out of range (1000 to 1000000 tokens)")
    if args.depths and args.depth_steps is not None:
        raise ConfigError("--depths and --depth-steps are alternatives: give one")
    if args.depths:
        depths = _number_list(args.depths, "--depths", float)
    elif args.depth_steps is not None:
        if args.depth_steps < 1:
            raise ConfigError(f"--depth-steps must be at least 1, got {args.depth_steps}")
        depths = niah_depths(args.depth_steps, args.depth_spacing)
    else:
        raise ConfigError("give --depths or --depth-steps")
    for d in depths:
        if not 0 <= d <= 1:
            raise ConfigError(f"--depths: {d} is outside [0, 1]")
    if not 1 <= args.needles <= 20:
        raise ConfigError(f"--needles must be 1 to 20, got {args.needles}")
    if not 0 <= args.distractors <= 20:
        raise ConfigError(f"--distractors must be 0 to 20, got {args.distractors}")
    return list(dict.fromkeys(lengths)), list(dict.fromkeys(depths))


def _write_rows(out: Path, rows: list[dict]) -> Path:
    """Write ``rows`` as one JSONL scenario file, whole or not at all (through a temporary file)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(out)
    return out


def _generate_needle(args: argparse.Namespace) -> int:

    from harness.compaction.variants import make_config
    from harness.runs.niah import check_cells
    from harness.scenarios.generate import niah_grid

    lengths, depths = _needle_grid_options(args)
    if not args.no_check:
        make_config(args.check)  # an unknown preset fails here, before any work
    rows = niah_grid(lengths, depths, args.seed, needles=args.needles, distractors=args.distractors)
    print(f"needle grid: {len(lengths)} length(s) x {len(depths)} depth(s) = {len(rows)} cells")
    if not args.no_check:
        checks = check_cells(rows, args.check, progress=lambda line: None)
        bad = [c for c in checks if not c.valid]
        print(f"checked under {args.check} (one offline run per cell): {len(rows) - len(bad)} valid, {len(bad)} cannot be valid")
        for c in bad:
            print(
                f"  INVALID {c.case_id} (length {c.length}, depth {c.depth:g}, {c.summaries} summaries before the question): "
                + "; ".join(r.split(":")[0] for r in c.reasons)
            )
        if bad:
            print(
                "  these cells will be reported INVALID under that preset (counted in no rate): use longer haystacks, "
                "shallower depths or a lower trigger to make them valid"
            )
    out = _write_rows(Path(args.out), rows)
    print(f"wrote {out}: {len(rows)} scenarios (run them: harness run --datasets {out} --variant {args.check})")
    return EXIT_OK


def _generate_probes(args: argparse.Namespace) -> int:
    from harness.errors import ConfigError
    from harness.scenarios.probes import FAMILIES, probe_rows

    if not args.out or not args.out.endswith(".jsonl"):
        raise ConfigError("--out: harness generate probes writes one scenario file; give a path ending in .jsonl")
    families = None
    if args.families is not None:
        families = list(dict.fromkeys(f.strip() for f in args.families.split(",") if f.strip()))
        unknown = [f for f in families if f not in FAMILIES]
        if not families:
            raise ConfigError(f"--families: no family named in {args.families!r}; known: {', '.join(FAMILIES)}")
        if unknown:
            raise ConfigError(f"--families: unknown family {unknown[0]!r}; known: {', '.join(FAMILIES)}")
    if not 1 <= args.instances <= 100:
        raise ConfigError(f"--instances must be 1 to 100, got {args.instances}")
    try:
        rows = probe_rows(args.seed, families, args.instances)
    except ValueError as exc:  # an instance too short to compact under a preset
        raise ConfigError(f"cannot generate: {exc}") from None
    out = _write_rows(Path(args.out), rows)
    names = families or list(FAMILIES)
    print(
        f"wrote {out}: {len(rows)} probe scenarios ({len(names)} famil{'y' if len(names) == 1 else 'ies'} x {args.instances}, "
        f"seed {args.seed}; each checked to compact before its first question under the forced presets)"
    )
    return EXIT_OK


def cmd_variants(args: argparse.Namespace) -> int:
    from harness.compaction.config import PRESETS
    from harness.compaction.variants import load_variant, resolve_config, variant_names
    from harness.errors import HarnessError

    print("threshold presets:")
    for preset in PRESETS.values():
        print(f"  {preset.label()}")
    print("summary-prompt variants (datasets/variants/*.md, applied on the default preset):")
    broken = 0
    for name in variant_names():
        try:
            variant = load_variant(name)
            resolve_config(name)  # front matter and prompt are valid on the default preset
        except HarnessError as exc:
            broken += 1
            print(f"  {name:<20} BROKEN: {exc}")
            continue
        print(f"  {name:<20} {variant.description}")
    if broken:
        print(f"{broken} variant file(s) cannot be used until fixed", file=sys.stderr)
    return EXIT_BAD_INPUT if broken else EXIT_OK


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: generate, variants."""
    from harness.scenarios.haystack import SHIPPED_SEED
    from harness.scenarios.probes import DEV_INSTANCES, FAMILIES  # light: no agent stack, no pydantic (about 0.5 ms)

    gen = sub.add_parser(
        "generate",
        help="regenerate the shipped scenario files, or write a needle-in-a-haystack grid or probe families",
        description="`harness generate` rewrites the shipped scenario files in --out (a directory). "
        "`harness generate needle --lengths 4000,8000 --depths 0,0.5,1 --out FILE.jsonl` writes a "
        "Kamradt-style grid of haystack length x needle depth, after checking which cells can be "
        "valid under --check PRESET. `harness generate probes --out FILE.jsonl [--families a,b] [--instances K]` "
        "writes seeded probe families (typed facts and the questions that probe them; see datasets/README.md).",
    )
    gen.add_argument(
        "what",
        nargs="?",
        choices=["shipped", "needle", "probes"],
        default="shipped",
        help="shipped (default): the files in datasets/; needle: a NIAH grid file; probes: probe families",
    )
    gen.add_argument(
        "--out", default=None, help="shipped: the directory (default datasets); needle, probes: the .jsonl file to write"
    )
    gen.add_argument(
        "--seed", type=int, default=SHIPPED_SEED, help=f"generator seed (default {SHIPPED_SEED}, the shipped files')"
    )
    niah = gen.add_argument_group("needle grid (harness generate needle)")
    niah.add_argument("--lengths", help="haystack lengths in tokens, comma-separated (e.g. 4000,8000,16000,32000)")
    niah.add_argument("--length-min", type=int, help="smallest haystack (tokens), with --length-max and --length-steps")
    niah.add_argument("--length-max", type=int, help="largest haystack (tokens)")
    niah.add_argument("--length-steps", type=int, help="number of lengths from min to max, evenly spaced")
    niah.add_argument("--depths", help="needle depths in [0, 1], comma-separated (e.g. 0,0.25,0.5,0.75,1)")
    niah.add_argument("--depth-steps", type=int, help="number of depths from 0 to 1 (instead of --depths)")
    niah.add_argument(
        "--depth-spacing",
        choices=["linear", "sigmoid"],
        default="linear",
        help="spacing of --depth-steps: linear, or sigmoid (denser near 0 and 1, as Kamradt's tester)",
    )
    niah.add_argument("--needles", type=int, default=1, help="needles per haystack, from the depth to the end (default 1)")
    niah.add_argument("--distractors", type=int, default=1, help="look-alike facts per haystack (default 1)")
    niah.add_argument(
        "--check",
        default="forced-20",
        metavar="PRESET",
        help="run each cell once offline under this preset and say which cannot be valid (default forced-20)",
    )
    niah.add_argument("--no-check", action="store_true", help="write without the validity check")
    probes = gen.add_argument_group("probe families (harness generate probes)")
    probes.add_argument(
        "--families",
        default=None,
        help=f"comma-separated families (default all): {', '.join(FAMILIES)}",
    )
    probes.add_argument(
        "--instances",
        type=int,
        default=DEV_INSTANCES,
        help=f"instances per family (default {DEV_INSTANCES}, as the shipped set)",
    )
    gen.set_defaults(handler=cmd_generate)

    variants = sub.add_parser(
        "variants",
        help="list the threshold presets and the summary-prompt variants",
        description="List the threshold presets (trigger, keep, window) and the summary-prompt variants in "
        "datasets/variants/ with what each sets; a variant file that does not load is listed as BROKEN with its "
        "error (exit 2).",
    )
    variants.set_defaults(handler=cmd_variants)
