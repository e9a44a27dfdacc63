#!/usr/bin/env python3
"""A table of exported models (plain Python, no JAX needed).

  python3 tools/summarize_models.py configs/models [--models=a,b]

One row per model folder that has a train_step.hlo: its parameter count
(from model.txt), the opcodes its HLO uses outside the set xla_lite
implements (with counts), its element types outside the supported ones, and
the number and total size of its files. Exits non-zero if a named model has
no folder or a folder lacks train_step.hlo or model.txt.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_text_checks as checks  # noqa: E402


def read_facts(path):
    facts = {}
    with open(path) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition(": ")
            if sep:
                facts[key] = value
    return facts


def summarize(model_dir):
    """{model, params, unsupported, types, files, kb} of one model folder."""
    with open(os.path.join(model_dir, "train_step.hlo")) as f:
        hlo_text = f.read()
    facts = read_facts(os.path.join(model_dir, "model.txt"))
    unsupported = checks.unsupported_opcodes(checks.opcode_census(hlo_text))
    types = sorted(set(checks.element_type_census(hlo_text)) -
                   checks.ALLOWED_ELEMENT_TYPES)
    files, size = 0, 0
    for root, _, names in os.walk(model_dir):
        for name in names:
            files += 1
            size += os.path.getsize(os.path.join(root, name))
    return {
        "model": os.path.basename(model_dir.rstrip("/")),
        "params": facts.get("parameter_count", "?"),
        "unsupported": " ".join("%s(%d)" % kv for kv in unsupported.items())
                       or "-",
        "types": " ".join(types) or "-",
        "files": files,
        "kb": size / 1024.0,
    }


def format_table(rows):
    header = ("model", "params", "files", "size KB", "element types",
              "opcodes outside ALLOWED_OPCODES")
    lines = [header] + [
        (r["model"], r["params"], str(r["files"]), "%.0f" % r["kb"], r["types"],
         r["unsupported"]) for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(5)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths)) +
        "  " + line[5] for line in lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", help="e.g. configs/models")
    parser.add_argument("--models", default="",
                        help="comma-separated names; default: every folder "
                        "with a train_step.hlo")
    flags = parser.parse_args(argv)
    names = [n for n in flags.models.split(",") if n]
    if not names:
        names = sorted(
            n for n in os.listdir(flags.folder)
            if os.path.isfile(os.path.join(flags.folder, n, "train_step.hlo")))
    rows, missing = [], []
    for name in names:
        model_dir = os.path.join(flags.folder, name)
        try:
            rows.append(summarize(model_dir))
        except OSError as e:
            missing.append("%s (%s)" % (name, e.strerror or e))
    print(format_table(rows))
    total = sum(r["kb"] for r in rows)
    print("%d models, %.0f KB%s" % (len(rows), total, "; incomplete: " +
                                    ", ".join(missing) if missing else ""))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
