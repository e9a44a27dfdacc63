"""Checks of HLO text as JAX writes it (plain Python, no JAX needed).

Used by tools/export_jax_hlo.py on every export and by
tools/summarize_models.py on exported folders.
"""

import collections
import re

# Opcodes xla_lite's compiler takes from JAX exports. The census is
# informative: an opcode outside the set is a warning, not a failure.
ALLOWED_OPCODES = frozenset("""
parameter constant broadcast reshape transpose dot add subtract multiply divide
maximum minimum negate abs exponential log tanh logistic sqrt rsqrt power
compare select clamp convert iota reduce call tuple get-tuple-element
and or not xor is-finite sign floor ceil cosine sine exponential-minus-one
log-plus-one remainder slice reverse copy bitcast
gather scatter concatenate pad convolution reduce-window select-and-scatter
all-reduce all-gather reduce-scatter collective-permute
""".split())

ALLOWED_ELEMENT_TYPES = frozenset(["f32", "bf16", "f16", "pred", "s32"])

# NumPy dtype name -> HLO element type.
_HLO_TYPES = {
    "float32": "f32", "bfloat16": "bf16", "float16": "f16", "bool": "pred",
    "int32": "s32", "int64": "s64", "uint8": "u8", "uint32": "u32",
}

_ALIAS_RE = re.compile(
    r"\{(\d*)\}:\s*\((\d+),\s*\{[\d,\s]*\},\s*(may-alias|must-alias)\)")
_SHAPE_RE = re.compile(r"\b([a-z]+\d*)\[([\d,]*)\]")
_INSTRUCTION_RE = re.compile(
    r"^\s*(?:ROOT\s+)?[\w.\-]+\s*=\s*.*?(?<![\w\-])([a-z][a-z0-9\-]*)\(")
# name = type opcode(operand, operand), attributes
_DEFINITION_RE = re.compile(
    r"^\s*(?:ROOT\s+)?([\w.\-]+)\s*=\s*([a-z]+\d*)\[[\d,]*\]")
_OPERANDS_RE = re.compile(r"\s(dot|convolution)\(([^()]*)\)")


def hlo_type(dtype):
    """The HLO element type of a NumPy (or ml_dtypes) dtype."""
    name = str(dtype)
    if name not in _HLO_TYPES:
        raise ValueError("no HLO element type for dtype %s" % name)
    return _HLO_TYPES[name]


def _balanced(text, start):
    """Index just past the bracket group opening at text[start]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    for i in range(start, len(text)):
        c = text[i]
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
    raise ValueError("unbalanced bracket at offset %d" % start)


def _shapes(text):
    """[(element_type, dims)] of the array shapes in a layout string."""
    text = re.sub(r"/\*.*?\*/", "", text)
    return [(t, tuple(int(d) for d in dims.split(",") if d))
            for t, dims in _SHAPE_RE.findall(text)]


_DONOR_RE = re.compile(r"\((\d+),\s*\{[\d,\s]*\}\)")


def buffer_donors(hlo_text):
    """Parameters listed in the header's buffer_donor={ (p, {}), ... }."""
    header = hlo_text.split("\n", 1)[0]
    key = "buffer_donor={"
    pos = header.find(key)
    if pos < 0:
        return []
    group = header[pos + len(key) - 1:_balanced(header, pos + len(key) - 1)]
    return [int(p) for p in _DONOR_RE.findall(group)]


def parse_module_header(hlo_text):
    """(aliases {output index: parameter}, parameter shapes, output shapes)."""
    header = hlo_text.split("\n", 1)[0]
    if not header.startswith("HloModule "):
        raise ValueError("line 1: expected 'HloModule', got %r" % header[:40])
    aliases = {}
    key = "input_output_alias={"
    pos = header.find(key)
    if pos >= 0:
        group = header[pos + len(key) - 1:_balanced(header, pos + len(key) - 1)]
        for out_index, param, _ in _ALIAS_RE.findall(group):
            if not out_index:
                raise ValueError("line 1: alias of a non-tuple output")
            aliases[int(out_index)] = int(param)
    key = "entry_computation_layout={"
    pos = header.find(key)
    if pos < 0:
        raise ValueError("line 1: no entry_computation_layout")
    params_start = pos + len(key)
    params_end = _balanced(header, params_start)
    if header[params_end:params_end + 2] != "->":
        raise ValueError("line 1: expected '->' after the entry parameters")
    results_end = _balanced(header, params_end + 2)
    return (aliases, _shapes(header[params_start:params_end]),
            _shapes(header[params_end + 2:results_end]))


def header_int(hlo_text, key):
    """An integer attribute of the HloModule line (num_partitions, ...), or
    None where the line does not name it."""
    header = hlo_text.split("\n", 1)[0]
    match = re.search(r"\b%s=(\d+)" % re.escape(key), header)
    return int(match.group(1)) if match else None


def opcode_census(hlo_text):
    census = collections.Counter()
    for line in hlo_text.splitlines():
        match = _INSTRUCTION_RE.match(line)
        if match:
            census[match.group(1)] += 1
    return census


def unsupported_opcodes(census):
    """{opcode: count} of the census outside ALLOWED_OPCODES."""
    return {op: n for op, n in sorted(census.items())
            if op not in ALLOWED_OPCODES}


def element_type_census(hlo_text):
    body = hlo_text.split("\n", 1)[1] if "\n" in hlo_text else ""
    return collections.Counter(t for t, _ in _shapes(body))


def dot_precision_counts(hlo_text):
    """(dots and convolutions, those with operand_precision={highest,highest})."""
    dots = [l for l in hlo_text.splitlines()
            if re.search(r"\s(dot|convolution)\(", l)]
    highest = [l for l in dots if "operand_precision={highest,highest}" in l]
    return len(dots), len(highest)


def dot_type_census(hlo_text):
    """Counter of "opcode lhs x rhs -> result" element types over the dots
    and convolutions (operand types looked up by name: JAX's text does not
    repeat them at the use)."""
    types = {}
    uses = []
    for line in hlo_text.splitlines():
        definition = _DEFINITION_RE.match(line)
        if not definition:
            continue
        types[definition.group(1)] = definition.group(2)
        use = _OPERANDS_RE.search(line)
        if use:
            operands = [o.strip() for o in use.group(2).split(",")]
            uses.append((use.group(1), operands, definition.group(2)))
    census = collections.Counter()
    for opcode, operands, result in uses:
        names = " x ".join(types.get(o, "?") for o in operands)
        census["%s %s -> %s" % (opcode, names, result)] += 1
    return census


def check_hlo(hlo_text, leaf_shapes, num_donated, require_highest=True):
    """Errors (fatal) and warnings (reported) for one exported step:
    (errors, warnings, aliases, output shapes, opcode census).

    leaf_shapes: [(hlo element type, dims)] of the step's argument leaves.
    require_highest: warn of a dot or convolution without highest operand
    precision (the f32 models; bf16 models use the default)."""
    errors, warnings = [], []
    aliases, param_shapes, output_shapes = parse_module_header(hlo_text)
    # A module of several partitions says donation with buffer_donor instead
    # of input_output_alias: a donated parameter whose output of the same
    # index has its shape is fed back as the alias would be.
    for param in buffer_donors(hlo_text):
        if (param < len(output_shapes) and param < len(param_shapes) and
                output_shapes[param] == param_shapes[param]):
            aliases.setdefault(param, param)
    if param_shapes != leaf_shapes:
        errors.append("entry parameters %s differ from the pytree leaves %s"
                      % (param_shapes, leaf_shapes))
    for param in range(num_donated):
        if aliases.get(param) != param:
            errors.append("donated parameter %d is not aliased to output %d "
                          "(aliases %s)" % (param, param, aliases))
    extra = {o: p for o, p in aliases.items() if p >= num_donated}
    if extra:
        errors.append("non-donated parameters aliased: %s" % extra)
    for out_index, param in aliases.items():
        if (out_index >= len(output_shapes) or param >= len(param_shapes) or
                output_shapes[out_index] != param_shapes[param]):
            errors.append("alias {%d}: (%d) joins different shapes"
                          % (out_index, param))
    census = opcode_census(hlo_text)
    for opcode, count in unsupported_opcodes(census).items():
        warnings.append("opcode outside the supported set: %s (x%d)"
                        % (opcode, count))
    for etype in sorted(set(element_type_census(hlo_text)) -
                        ALLOWED_ELEMENT_TYPES):
        warnings.append("element type outside %s: %s"
                        % ("/".join(sorted(ALLOWED_ELEMENT_TYPES)), etype))
    dots, highest = dot_precision_counts(hlo_text)
    if require_highest and dots != highest:
        warnings.append("%d of %d dots and convolutions lack "
                        "operand_precision={highest,highest}"
                        % (dots - highest, dots))
    return errors, warnings, aliases, output_shapes, census
