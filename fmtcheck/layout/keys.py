"""Keys and columns of a capture: which labelled lines it prints, and how many fields its rows have.

A keyed /proc file (meminfo, vmstat, status, smaps, net/snmp, net/netstat) is a list of labelled
lines whose labels change with the kernel release and configuration: a grammar accepts any label
with the common layout, so the layout alone does not see a label dropped or renamed. The grammar's
`keys` and `key` entries say which field holds a line's key and which kernels print each key;
`columns` entries name the rows whose number of fields is part of the layout (diskstats counters,
the fields of /proc/PID/stat, the columns of a net/snmp section).

`take_inventory` reads the keys and field counts of the first INVENTORY_BYTES of a capture (every
keyed file is far smaller; an smaps capture repeats the same keys in every VMA) by matching them
line by line against the grammar. `check` uses it for keys every matching kernel prints
(`missing-line`) and keys no known kernel prints (a `key-unknown` note); `diff` compares the
inventories of both sides (`key-removed`, `key-added`, `key-renamed`, `columns-added`,
`columns-removed`).
"""

from __future__ import annotations

import io

from fmtcheck.common.errors import InputError
from fmtcheck.common.plain import factory, plain
from fmtcheck.common.result import Divergence
from fmtcheck.layout.loose import loose_walk
from fmtcheck.layout.matcher import Matcher
from fmtcheck.layout.model import Grammar, KeyInfo, Line, Lit, Optional, Records, Variant, line_fields, walk_nodes
from fmtcheck.layout.reader import Reader, open_capture

INVENTORY_BYTES = 64 << 10  # the part of a capture whose keys and columns are read
MAX_KEYS_SHOWN = 5  # missing keys named in one report

KEY_REMOVED_WHY = ("a reader that looks this key up (psutil's and procps' meminfo/status readers, "
                   "jc, prometheus/procfs) finds nothing")
KEY_ADDED_WHY = "readers look keys up by name and skip the ones they do not know"
KEY_RENAMED_WHY = "a reader that looks the old name up finds nothing"


@plain
class Entry:
    """One keyed line of a capture (its first occurrence)."""

    key: str
    line: int
    text: bytes
    role: str
    block: int | None = None  # the `optional` block the line is in (the object prints it or not)


@plain
class Row:
    """The field count of one row, by line name and the key of the section it is in."""

    count: int
    line: int
    text: bytes


@plain
class Inventory:
    keys: dict = factory(dict)  # key -> Entry, in capture order
    rows: dict = factory(dict)  # (line name, section key) -> Row
    complete: bool = True  # the whole capture was read
    blocks: set = factory(set)  # the `optional` blocks the capture prints


def is_keyed(g: Grammar) -> bool:
    return bool(g.key_fields or g.keys)


def prefix_of(path: str, limit: int = INVENTORY_BYTES) -> tuple[bytes, bool]:
    """The first LIMIT bytes of a capture, cut after its last whole line; and whether that is all."""
    with open_capture(path) as f:
        try:
            data = f.read(limit + 1)
        except OSError as err:
            raise InputError(path, err.strerror or "cannot read") from None
    if len(data) <= limit:
        return data, True
    cut = data.rfind(b"\n", 0, limit)
    return data[: cut + 1] if cut >= 0 else data[:limit], False


def inventory_of(path: str, g: Grammar) -> Inventory:
    """The inventory of a capture file (of its first INVENTORY_BYTES)."""
    data, complete = prefix_of(path)
    return take_inventory(data, g, complete)


def take_inventory(data: bytes, g: Grammar, complete: bool = True) -> Inventory:
    """The keys and row field counts of DATA (a capture, or its first part)."""
    matcher = Matcher(g, Reader(io.BytesIO(data), "<inventory>"), collect=True, bulk=False)
    matcher.run()
    lines = data.split(b"\n")
    by_name = {line.name: line for line in g.lines}
    inv = Inventory(complete=complete)
    per_object = object_lines(g)
    in_block = containers(g)
    section = None
    read = {}
    for number in sorted(matcher.line_roles):
        node = by_name.get(matcher.line_roles[number])
        if node is None or number > len(lines):
            continue
        text = lines[number - 1]
        if node.name not in read:
            read[node.name] = values_matter(g, node)
        values = loose_walk(node, text, g).values if read[node.name] else {}
        key = line_key(g, node, values)
        block = in_block.get(node.name)
        if block is not None:
            inv.blocks.add(block)
        if key is not None and node.name not in per_object:
            section = key
            for k in [key] + sub_keys(g, key, values):
                if k not in inv.keys:  # its first line (an smaps capture repeats each key per VMA)
                    inv.keys[k] = Entry(k, number, text, node.name, block)
        if node.name in g.columns:
            inv.rows.setdefault((node.name, section), Row(count_fields(values), number, text))
    return inv


def values_matter(g: Grammar, node: Line) -> bool:
    """Does the inventory need the values of NODE's lines? Only for a row whose fields it counts
    (`columns`) or a line holding the grammar's key fields: `line_key` and `sub_keys` read nothing
    else, and loose_walk's values are keyed by the line's own field names. An smaps capture's
    2,000 labelled lines then cost no loose reading (~15 us each)."""
    names = {f.name for f in line_fields(node)}
    return node.name in g.columns or any(k in names for k in g.key_fields[:2])


def object_lines(g: Grammar) -> set[str]:
    """The lines an `optional` block holds outside any variant: printed or not by the object (a
    kernel thread's status has no Vm* lines), so not keys of the layout. A `config` line inside
    the block (VmSwap) is a key, compared when both sides print the block."""
    out = set()
    for opt in walk_nodes(g.body):
        if isinstance(opt, Optional):
            out.update(line.name for line in _direct_lines(opt.body))
    return out


def _direct_lines(nodes: list):
    for node in nodes:
        if isinstance(node, Line):
            yield node
        elif not isinstance(node, Variant):
            bodies = getattr(node, "options", None) or [getattr(node, "body", [])]
            for body in bodies:
                yield from _direct_lines(body)


def optional_of(g: Grammar) -> dict[str, int]:
    """Line name -> uid of the innermost `optional` block it is in."""
    return _innermost(g, Optional)


def _innermost(g: Grammar, kind: type) -> dict[str, int]:
    """Line name -> uid of the innermost block of KIND holding the line."""
    out: dict[str, int] = {}
    for block in walk_nodes(g.body):  # outer blocks first: inner ones overwrite
        if isinstance(block, kind):
            for line in walk_nodes(block.body):
                if isinstance(line, Line):
                    out[line.name] = block.uid
    return out


def keyed_by_lines(g: Grammar) -> bool:
    """`keys lines`: each line's own label is its key (status, smaps), not a field's value."""
    return g.key_fields[:1] == ("lines",)


def containers(g: Grammar) -> dict[str, int]:
    """Line name -> uid of the innermost block that the object prints or not: an `optional` block,
    and, in a grammar keyed by its lines (status, smaps), a `records` block (a process with no
    mapping has an empty smaps). A key whose block a capture does not print is not missing."""
    out = optional_of(g)
    if keyed_by_lines(g):
        for name, uid in _innermost(g, Records).items():
            out.setdefault(name, uid)  # an `optional` inside the record is the innermost
    return out


def key_blocks(g: Grammar) -> dict[str, set]:
    """Key -> the blocks (`containers`) of the lines that print it; an empty set: a line outside
    any block prints it. Only for grammars keyed by their lines' labels."""
    if not keyed_by_lines(g):
        return {}
    within = containers(g)
    out: dict[str, set] = {}
    for line in g.lines:
        key = line_key(g, line, {})
        if key is None:
            continue
        blocks = out.setdefault(key, set())
        if line.name not in within:
            blocks.add(None)
        else:
            blocks.add(within[line.name])
    return {k: set() if None in b else b for k, b in out.items()}


def line_key(g: Grammar, node, values: dict) -> str | None:
    """A line's key: the value of the grammar's key field, else the label its literal starts with."""
    if g.key_fields and values.get(g.key_fields[0]) is not None:
        return _text(values[g.key_fields[0]])
    first = node.items[0] if node.items else None
    if isinstance(first, Lit):
        word = first.data.split(b":")[0].split(b"\t")[0].strip()
        return word.decode("latin-1") or None
    return None


def sub_keys(g: Grammar, key: str, values: dict) -> list[str]:
    """`keys section name`: each value of the repeated NAME field is a key of its own, SECTION.NAME."""
    if len(g.key_fields) < 2:
        return []
    names = values.get(g.key_fields[1])
    names = names if isinstance(names, list) else [] if names is None else [names]
    return [f"{key}.{_text(n)}" for n in names]


def _text(value) -> str:
    raw = value if isinstance(value, bytes) else str(value).encode()
    return raw.strip(b" \t").rstrip(b":").decode("latin-1")


def count_fields(values: dict) -> int:
    return sum(len(v) if isinstance(v, list) else 1 for name, v in values.items() if name and v is not None)


# --------------------------------------------------------------------------------------------------
# check: keys every matching kernel prints, keys no known kernel prints


def release(v: tuple | None) -> str:
    return ".".join(map(str, v)) if v else "?"


def kernel_range(g: Grammar, present: list[str]) -> tuple[tuple | None, tuple | None]:
    """The releases [low, high) that print every known key of PRESENT (None: unbounded)."""
    infos = [g.keys[k] for k in present if k in g.keys]
    lows = [i.since for i in infos if i.since]
    highs = [i.until for i in infos if i.until]
    return (max(lows) if lows else None), (min(highs) if highs else None)


def required_keys(g: Grammar, low: tuple | None, high: tuple | None) -> list[KeyInfo]:
    """The keys printed by every release in [low, high), whatever the config and architecture."""
    out = []
    for info in g.keys.values():
        if info.conditional:
            continue
        if info.since is not None and (low is None or info.since > low):
            continue
        if info.until is not None and (high is None or info.until < high):
            continue
        out.append(info)
    return out


def check_keys(g: Grammar, inv: Inventory) -> tuple[list[Divergence], list[str]]:
    """Divergences for keys the capture's kernels all print and the capture lacks; notes for
    keys no known kernel prints (a distribution's patch or a newer kernel)."""
    if not g.keys:
        return [], []
    present = list(inv.keys)
    low, high = kernel_range(g, present)
    notes = []
    if low and high and low >= high:
        notes.append(f"the keys of this capture are printed by no single known release "
                     f"(one needs {release(low)}+, another ends before {release(high)}): "
                     "missing keys were not looked for")
        return [], notes + unknown_notes(g, present)
    span = f"{release(low)}+" if low else "every known release"
    if high:
        span += f" before {release(high)}"
    gaps: dict = {}  # where the missing keys would be -> their names, in the grammar's order
    blocks = key_blocks(g)
    if inv.complete:
        for info in required_keys(g, low, high):
            printed = blocks.get(info.name)
            if printed and not printed & inv.blocks:
                continue  # its block is not printed: a process without an mm, without mappings
            if info.name not in inv.keys:
                gaps.setdefault(_where(g, inv, info.name), []).append(info.name)
    divs = [missing_keys(line, text, names, span) for (line, text), names in gaps.items()]
    return divs, notes + unknown_notes(g, present)


def missing_keys(line: int, text: bytes, names: list[str], span: str) -> Divergence:
    """One divergence for the keys missing at one place (a capture cut short lacks them all)."""
    shown = ", ".join(repr(n) for n in names[:MAX_KEYS_SHOWN])
    more = f" and {len(names) - MAX_KEYS_SHOWN} more" if len(names) > MAX_KEYS_SHOWN else ""
    what = f"key {shown} is" if len(names) == 1 else f"keys {shown}{more} are"
    return Divergence(line, 1, names[0].encode() + b":", text, names[0], "breaking", "missing-line",
                      note=f"{what} missing: every kernel that prints this capture's keys prints "
                           f"{'it' if len(names) == 1 else 'them'} ({span}); expected shows the label only")


def unknown_notes(g: Grammar, present: list[str]) -> list[str]:
    unknown = [k for k in present if k not in g.keys]
    if not unknown:
        return []
    shown = ", ".join(unknown[:8]) + (f" and {len(unknown) - 8} more" if len(unknown) > 8 else "")
    return [f"key-unknown: {shown}: printed by no release the {g.name} grammar knows "
            "(a distribution's patch or a newer kernel); not a divergence"]


def _where(g: Grammar, inv: Inventory, name: str) -> tuple[int, bytes]:
    """Where key NAME would be: after the nearest key before it (in the grammar's order) present."""
    order = list(g.keys)
    before = order[: order.index(name)]
    line = 1
    for k in reversed(before):
        if k in inv.keys:
            line = inv.keys[k].line + 1
            break
    after = [e for e in inv.keys.values() if e.line == line]
    return line, after[0].text if after else b""


# --------------------------------------------------------------------------------------------------
# diff: keys and columns present on one side only


def key_condition(g: Grammar, key: str) -> str:
    """What a key depends on, from its `key` entry or the `config`/`variant` option holding its line."""
    info = g.keys.get(key)
    listed = info.describe() if info is not None else ""
    block = _block_label(g, key)
    return "; ".join(p for p in (listed, block) if p)


def _block_label(g: Grammar, key: str) -> str:
    """The label of the innermost `config`/`variant` option holding the line of KEY, if any."""
    base = key.split(".")[0]
    found = ""  # the innermost option holding the line (a config nested in a version variant)
    for v in (n for n in walk_nodes(g.body) if isinstance(n, Variant)):
        for label, body in zip(v.labels, v.options):
            for line in (n for n in walk_nodes(body) if hasattr(n, "items")):
                first = line.items[0] if line.items else None
                if isinstance(first, Lit) and first.data.split(b":")[0].strip().decode("latin-1") == base:
                    found = f"{v.name}: {label}"
    return found


def diff_keys(g: Grammar, old: Inventory, new: Inventory) -> list[Divergence]:
    """Keys present on one side only, as layout changes; a key dropped where another appears
    between the same neighbours is a rename."""
    def compared(inv: Inventory, other: Inventory, k: str) -> bool:
        block = inv.keys[k].block
        return block is None or block in other.blocks

    removed = [k for k in old.keys if k not in new.keys and compared(old, new, k)]
    added = [k for k in new.keys if k not in old.keys and compared(new, old, k)]
    renames = _pair_renames(old, new, removed, added)
    out = []
    for a, b in renames:
        e, n = old.keys[a], new.keys[b]
        out.append(Divergence(n.line, 1, e.text, n.text, a, "breaking", "key-renamed",
                              note=f"key {a!r} is {b!r} in NEW: {KEY_RENAMED_WHY}"))
    paired_old = {a for a, _ in renames}
    paired_new = {b for _, b in renames}
    for k in removed:
        if k in paired_old:
            continue
        e = old.keys[k]
        out.append(Divergence(_line_in(new, old, k), 1, e.text, b"", k, "breaking", "key-removed",
                              expected_has_newline=True, actual_has_newline=False,
                              note=_key_note(g, k, "is in OLD only", KEY_REMOVED_WHY)))
    for k in added:
        if k in paired_new:
            continue
        n = new.keys[k]
        out.append(Divergence(n.line, 1, b"", n.text, k, "cosmetic", "key-added",
                              expected_has_newline=False,
                              note=_key_note(g, k, "is in NEW only", KEY_ADDED_WHY)))
    return out


def _key_note(g: Grammar, key: str, where: str, why: str) -> str:
    cond = key_condition(g, key)
    return f"key {key!r} {where}" + (f" ({cond})" if cond else "") + f": {why}"


def _pair_renames(old: Inventory, new: Inventory, removed: list, added: list) -> list[tuple[str, str]]:
    """A removed and an added key with the same key before them on both sides."""
    old_order, new_order = list(old.keys), list(new.keys)

    def before(order, k):
        i = order.index(k)
        return order[i - 1] if i else None

    out = []
    taken = set()
    for a in removed:
        for b in added:
            same_section = ("." in a) == ("." in b) and ("." not in a or a.split(".")[0] == b.split(".")[0])
            if b not in taken and same_section and before(old_order, a) == before(new_order, b):
                out.append((a, b))
                taken.add(b)
                break
    return out


def _line_in(new: Inventory, old: Inventory, key: str) -> int:
    """The line of NEW where OLD's key would be: after the key that precedes it in OLD."""
    order = list(old.keys)
    for k in reversed(order[: order.index(key)]):
        if k in new.keys:
            return new.keys[k].line + 1
    return 1


def diff_columns(g: Grammar, old: Inventory, new: Inventory) -> list[Divergence]:
    """Rows whose number of fields differs between the sides (a counter added or removed)."""
    out = []
    for where, a in old.rows.items():
        b = new.rows.get(where)
        if b is None or a.count == b.count:
            continue
        rule = g.columns[where[0]]
        section = f" of {where[1]}" if where[1] else ""
        if b.count > a.count:
            ok = rule.accepts(b.count)
            severity = "cosmetic" if ok else "breaking"
            reader = ("readers that split the row and index from its start read the same values"
                      if ok else "a reader that expects a fixed number of fields fails")
            out.append(Divergence(b.line, len(a.text) + 1, a.text, b.text, where[0], severity, "columns-added",
                                  note=f"row {where[0]}{section}: {a.count} fields in OLD, {b.count} in NEW; "
                                       f"{reader} ({rule.why})"))
        else:
            out.append(Divergence(b.line, len(b.text) + 1, a.text, b.text, where[0], "breaking", "columns-removed",
                                  note=f"row {where[0]}{section}: {a.count} fields in OLD, {b.count} in NEW; "
                                       f"a reader that reads the dropped fields by position fails ({rule.why})"))
    return out
