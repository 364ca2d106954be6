"""Grammar language, loading, rendering and domains (fmtcheck.layout.grammar)."""

from __future__ import annotations

import re

import pytest

from fmtcheck.common.errors import InputError
from fmtcheck.layout.model import Field, Printf, Prim, line_fields
from fmtcheck.layout.compiler import compile_items
from fmtcheck.layout.render import example_values, field_domain, render_line
from fmtcheck.layout.language import grammar_names, load_grammar, parse_grammar
from fmtcheck.layout.show import grammars_command
from fmtcheck.layout.regexes import number_regex

REQUIRED = {"net_dev", "smaps", "smaps_rollup", "maps", "status", "pid_stat", "statm", "meminfo",
            "stat", "vmstat", "interrupts", "softirqs", "diskstats", "net_snmp", "net_netstat",
            # issue 17: the files monitoring tools read
            "loadavg", "uptime", "pid_io", "pid_schedstat", "pid_comm", "pid_syscall", "pid_limits",
            "pid_cgroup", "pid_mountinfo", "mounts", "net_softnet_stat", "pressure", "net_sockstat",
            "net_sockstat6", "net_snmp6", "buddyinfo", "cgroups", "filesystems", "devices", "sys_fs_file_nr",
            "net_xfrm_stat", "net_tcp", "net_tcp6", "net_udp", "net_udp6", "net_unix", "net_arp",
            "cpuinfo", "schedstat", "consoles", "modules", "net_rpc_nfs", "net_rpc_nfsd", "pid_fdinfo", "slabinfo",
            "pid_wchan", "pid_mountstats", "cpuinfo_s390", "cpuinfo_ppc", "zoneinfo"}


def test_at_least_forty_grammars_ship():
    assert len(grammar_names()) >= 40


def test_every_required_grammar_ships_and_names_its_printer():
    names = set(grammar_names())
    assert REQUIRED <= names
    for name in names:
        g = load_grammar(name)
        assert g.printer and g.path and g.lines, name


def test_unknown_grammar_is_an_input_error():
    with pytest.raises(InputError):
        load_grammar("no_such_file")
    with pytest.raises(InputError):
        load_grammar("../etc/passwd")


def test_syntax_error_says_where():
    with pytest.raises(InputError) as err:
        parse_grammar('line "a" <x:u64 %7llu', "bad")
    assert "bad.grammar:" in err.value.where


def test_render_net_dev_line_like_the_kernel_printf():
    g = load_grammar("net_dev")
    line = g.line("device")
    values = {f.name: 0 for f in line_fields(line)}
    values.update(iface=b"eth0", rx_bytes=4046496815)
    out = render_line(line, values)
    assert out.startswith(b"  eth0: 4046496815       0    0")
    assert out.endswith(b"          0\n")
    old = render_line(g.line("device_old"), values)
    assert old.startswith(b"  eth0:4046496815       0")  # the 2.6-era glue


def test_render_seq_file_primitives_and_pad():
    g = load_grammar("maps")
    line = g.line("vma")
    v = dict(start=0x55D6C1A00000, end=0x55D6C1A22000, perms=b"r--p", pgoff=0, major=8, minor=1,
             inode=1234567, name=b"/usr/bin/cat")
    out = render_line(line, v)
    assert out == b"55d6c1a00000-55d6c1a22000 r--p 00000000 08:01 1234567" + b" " * 20 + b"/usr/bin/cat\n"
    assert out.index(b"/usr") == 73
    del v["name"]
    assert render_line(line, v).endswith(b" 1234567 \n")  # unnamed VMA: trailing space, no pad


def test_render_repeated_and_optional_groups():
    g = load_grammar("status")
    groups = g.line("Groups")
    assert render_line(groups, {}) == b"Groups:\t \n"
    assert render_line(groups, {"group": 4, "groups": [24, 27]}) == b"Groups:\t4 24 27 \n"
    flags = g.line("VmFlags") if "VmFlags" in [ln.name for ln in g.lines] else load_grammar("smaps").line("VmFlags")
    assert render_line(flags, {"flag": [b"rd", b"ex"]}) == b"VmFlags: rd ex \n"


def test_field_domains_for_the_engine():
    g = load_grammar("net_dev")
    line = g.line("device")
    iface, rx = line_fields(line)[:2]
    dom = field_domain(iface, g)
    assert dom.kind == "ifname" and dom.min_len == 1 and dom.max_len == 15
    assert not re.fullmatch(dom.charset, b":") and not re.fullmatch(dom.charset, b" ")
    assert re.fullmatch(dom.charset, b"\xff")
    d = field_domain(rx, g)
    assert (d.kind, d.bits, d.max) == ("u64", 64, 2**64 - 1)
    narrowed = field_domain(Field("x", "u64", Printf(b"%u")))
    assert narrowed.max == 2**32 - 1
    signed = field_domain(Field("y", "s64", Prim("ll", b" ")))
    assert signed.signed and signed.min == -(2**63) + 1


@pytest.mark.parametrize("width", [1, 4, 8, 10])
@pytest.mark.parametrize("mode", ["right", "left", "zero"])
def test_number_regex_accepts_exactly_the_renderings(width, mode):
    rx = re.compile(number_regex(10, False, 0, 2**32 - 1, width, mode).encode())
    for v in [0, 7, 42, 999, 12345678, 4294967295]:
        pad = {"right": f"{v:>{width}}", "left": f"{v:<{width}}", "zero": f"{v:0{width}}"}[mode]
        assert rx.fullmatch(pad.encode()), (v, pad)
        if len(str(v)) < width:
            assert not rx.fullmatch(str(v).encode()) or width == 1
    assert not rx.fullmatch(b"4294967296".rjust(width))
    if mode != "zero":
        assert not rx.fullmatch(b"007".rjust(width))


def test_compiled_line_is_width_exact():
    g = load_grammar("net_dev")
    comp = compile_items(g, g.line("device").items, {})
    good = render_line(g.line("device"), example_values(g.line("device"), g))
    assert comp.regex.fullmatch(good)
    assert not comp.regex.fullmatch(good.replace(b"  13222", b"   13222", 1))
    assert not comp.regex.fullmatch(good.replace(b"  13222", b"0013222", 1))


def test_grammars_command_lists_and_shows(capsys):
    assert grammars_command(None, "text") == 0
    assert "net_dev" in capsys.readouterr().out
    assert grammars_command("smaps", "text") == 0
    out = capsys.readouterr().out
    assert "show_smap" in out and "VmFlags" in out
    assert grammars_command("interrupts", "json") == 0
    assert '"lines"' in capsys.readouterr().out


def test_pad_column_is_exact_in_the_regex():
    g = load_grammar("maps")
    line = g.line("vma")
    v = dict(start=0x55D6C1A00000, end=0x55D6C1A22000, perms=b"r--p", pgoff=0, major=8, minor=1,
             inode=1234567, name=b"/usr/bin/cat")
    good = render_line(line, v)
    rx = compile_items(g, line.items, {}).regex
    assert rx.fullmatch(good) and not compile_items(g, line.items, {}).checks
    assert not rx.fullmatch(good.replace(b" /usr", b"  /usr"))  # one space too many
    assert not rx.fullmatch(good.replace(b"  /usr", b" /usr"))  # one too few
    assert rx.fullmatch(b"\n" + good, 1)  # the column counts from the line start, not the buffer's
    wide = render_line(line, dict(v, start=0xFFFFFFFFFF600000, end=0xFFFFFFFFFF601000, inode=10**19))
    assert wide.index(b"/usr") > 73 and rx.fullmatch(wide)  # past the column: no padding at all
    assert not rx.fullmatch(wide.replace(b" /usr", b"  /usr"))


def test_detection_reads_only_the_header_entries():
    from fmtcheck.layout.language import detect_grammar, grammar_meta

    for name in grammar_names():
        meta, g = grammar_meta(name), load_grammar(name)
        assert (meta.detect, meta.filename, meta.priority) == (g.detect, g.filename, g.priority), name
    assert detect_grammar(b"MemTotal:       16384 kB\n", "meminfo").name == "meminfo"
    assert detect_grammar(b"hello\n") is None


@pytest.mark.parametrize("domain,good,bad", [
    ("bitlist", [b"0-1", b"0,2-5,10", b""], [b"00-1", b"0-01", b"0,-1"]),
    ("label", [b"MemTotal:", b"Active(anon):"], [b"MemTotal", b"VmallocTotal:343", b":"]),
])
def test_narrow_domains(domain, good, bad):
    from fmtcheck.layout.model import BUILTIN_DOMAINS

    rx = re.compile(BUILTIN_DOMAINS[domain].regex)
    assert all(rx.fullmatch(v) for v in good) and not any(rx.fullmatch(v) for v in bad)


FINAL = """name t
line as first <n:u32 %u>
final as last <v:u32 %u> " end"
"""


def test_a_final_line_ends_the_file_without_a_newline():
    from fmtcheck.layout.capture import check_bytes

    g = parse_grammar(FINAL)
    last = g.lines[-1]
    assert render_line(last, {"v": 7}) == b"7 end"
    assert not check_bytes(b"1\n7 end", g).divergences
    kinds = {d.kind for d in check_bytes(b"1\n7 end\n", g).divergences}
    assert kinds == {"extra-text"}
    assert check_bytes(b"1\n7 end\nmore", g).divergences
    assert check_bytes(b"1\n7  end", g).divergences
    # an ordinary line still wants its newline
    assert {d.kind for d in check_bytes(b"1", parse_grammar("name t\nline <n:u32 %u>\n")).divergences} \
        == {"missing-newline"}


def _matching_the_slow_way(head: bytes) -> list[str]:
    """The grammars whose `detect` matches HEAD, every regex compiled and tried."""
    from fmtcheck.layout.language import grammar_meta

    return sorted(m.name for m in map(grammar_meta, grammar_names()) if m.detect is not None and re.match(m.detect, head))


def _matching_by_the_index(head: bytes) -> list[str]:
    from fmtcheck.layout.language import _detection

    first = head[0] if head else None
    return sorted(name for name, detect, _filename, _priority, starts in _detection()
                  if detect is not None and (first is None or starts >> first & 1) and re.match(detect, head))


def test_detection_tries_only_the_regexes_that_can_match_the_first_byte():
    """Detection compiles only the `detect` regexes whose first-byte set (`_first_bytes`, kept in
    the cache) holds the capture's first byte: on every grammar's example rendering, and on it
    with its first byte changed to each byte value, the grammars found are those every regex
    tried finds. Case-insensitive, empty-matching or unknown patterns allow every byte."""
    from fmtcheck.layout import dfa
    from fmtcheck.layout.language import _first_bytes
    from fmtcheck.layout.render import example_rendering

    for name in grammar_names():
        head = b"".join(text for _, text in example_rendering(load_grammar(name)))
        assert name in _matching_by_the_index(head) or name not in _matching_the_slow_way(head)
        for first in range(256):
            other = bytes([first]) + head[1:]
            assert _matching_by_the_index(other) == _matching_the_slow_way(other), (name, first)
    assert _first_bytes(rb"(?i)abc") == dfa.ALL and _first_bytes(rb"(?i:a)b") == dfa.ALL
    assert _first_bytes(rb"a*") == dfa.ALL and _first_bytes(rb"^x") == dfa.ALL and _first_bytes(None) == dfa.ALL
    assert _first_bytes(rb"(?:nodev)?\t[a-z]+\n") == (1 << ord("n")) | (1 << 9)
    assert _first_bytes(rb"[0-9]+ \(") == sum(1 << b for b in b"0123456789")
