"""The kernel's macros as fmtcheck reads them before parsing: annotations that are no C to a
parser, iterator macros (`for_each_*`, `*_foreach*`) that are loops, and calls that are the
identity on values (`likely`, `READ_ONCE`, ...).

The C front end (`fmtcheck.c.cfront`) and the patch front end's lexer (`fmtcheck.patch.ctext`)
both ask this module, so that a construct is known to both or to neither.
"""

from __future__ import annotations

import re

from fmtcheck.kernel import lib
from fmtcheck.kernel.primitives import PRIMITIVES
from fmtcheck.common.lazyre import lazy_compile

# Attribute-like words that carry no meaning for output; blanked (same length) before parsing.
ANNOTATIONS = lazy_compile(
    rb"\b(?:__(?:always_inline|weak|maybe_unused|init|exit|cold|hot|user|rcu|percpu|iomem|"
    rb"must_check|pure|noreturn|used|ro_after_init|read_mostly|initdata|initconst|force|bitwise|kernel|"
    rb"noinline_for_stack|noinline|always_unused|visible|latent_entropy|ref|meminit|sched|"
    rb"net_init|net_exit|net_initdata|net_exitdata)"
    rb"|noinline|notrace|asmlinkage|inline)\b"
)

# Annotations that take an argument list; blanked with their parentheses.
ANNOTATIONS_WITH_ARGS = lazy_compile(
    rb"\b(?:__aligned|__printf|__section|__attribute__|__acquires|__releases|__must_hold|"
    rb"__cacheline_aligned_in_smp|__counted_by|__nonstring|__guarded_by)\s*\("
)

# An iterator macro call: rewritten into a loop whose count and elements are inputs (the kernel
# spells a few in capitals: `CAP_FOR_EACH_U32(i) {...}`).
FOR_EACH = lazy_compile(rb"\b(\w*(?:for_each|FOR_EACH)\w*|\w*_foreach\w*)\s*\(")

# Calls that return their (first) argument.
IDENTITY_CALLS = {"likely", "unlikely", "READ_ONCE", "data_race", "ACCESS_ONCE", "__builtin_expect"}


# ---------------------------------------------------------------------------------------------
# The kernel's macros that are not plain C to a parser, rewritten into C that means the same
# (`rewrite`, run by the C front end after the input's own #defines are expanded).
#
# Headers are not available, so these are rewritten by shape rather than one by one:
# - a typed min/max/clamp becomes the untyped one over casts, so the type still applies;
# - an "entry" macro (container_of and the list/hlist/rb/llist families) becomes a cast of its
#   pointer to the container type: fields read through it are inputs keyed by that pointer;
# - any other macro argument that is a type (`struct T`, `unsigned long`) becomes a string literal
#   naming it, so the call parses and stays an uninterpreted function of its arguments;
# - a `scoped_*` block runs its body once, `guard(...)(...);` is a lock with no output,
#   `do_each_X(...) {...} while_each_X(...);` is an iterator loop like `for_each_*`, and
#   compile-time assertions (BUILD_BUG_ON) are blank;
# - at file scope, `DEFINE_PER_CPU(T, x)`/`DECLARE_PER_CPU(T, x)` declare x of type T and every
#   other upper-case or registration macro statement is blanked: it prints nothing and would
#   otherwise make the whole file look like a fragment of a function.
# Every rewrite keeps the number of newlines, so reports keep the user's line numbers.

TYPED_MINMAX = {b"min_t": b"min", b"max_t": b"max", b"clamp_t": b"clamp", b"umin_t": b"min"}
ENTRY_MACROS = {
    b"container_of", b"container_of_const", b"list_entry", b"list_first_entry", b"list_last_entry",
    b"list_first_entry_or_null", b"list_last_entry_or_null", b"hlist_entry", b"hlist_entry_safe",
    b"list_entry_rcu", b"list_first_or_null_rcu", b"rb_entry", b"rb_entry_safe", b"llist_entry",
    b"hlist_nulls_entry", b"list_entry_is_head", b"container_of_safe",
}
# macros that stand for several arguments of a printf (`%*pb` takes a width and a bitmap):
# the kernel's definitions, by shape (include/linux/cpumask.h, nodemask.h)
ARGUMENT_LIST_MACROS = {
    b"cpumask_pr_args": (b"nr_cpu_ids", b"cpumask_bits"),
    b"nodemask_pr_args": (b"__nodemask_pr_numnodes", b"__nodemask_pr_bits"),
}
# macros whose argument is a type (by position) and that are plain functions of the rest
_TYPE_WORDS = rb"(?:struct|union|enum|unsigned|signed|const|volatile|int|long|short|char|void|_Bool|bool|" \
              rb"u8|u16|u32|u64|s8|s16|s32|s64|__u8|__u16|__u32|__u64|__s32|__s64|size_t|ssize_t)"
_TYPE_ARG = lazy_compile(
    rb"\s*(?:(?:const|volatile)\s+)*(?:(?:struct|union|enum)\s+\w+|(?:(?:unsigned|signed)\s+)?"
    rb"(?:long\s+long|long|int|short|char|void|_Bool|bool)(?:\s+int)?|unsigned|signed)"
    rb"(?:\s*\*)*\s*(?:const\s*)?\Z"
)
_KEYWORD_LED_TYPE = lazy_compile(rb"\s*(?:const\s+|volatile\s+)*(?:struct|union|enum|unsigned|signed)\b")
_NOT_MACROS = {b"sizeof", b"_Alignof", b"__alignof__", b"typeof", b"__typeof__", b"__typeof", b"offsetof",
               b"if", b"while", b"for", b"switch", b"return", b"__builtin_offsetof", b"_Generic",
               b"__builtin_types_compatible_p", b"va_arg", b"__fc_each"}
_CALL_HEAD = lazy_compile(rb"\b([A-Za-z_]\w*)\s*\(")
_SCOPED = lazy_compile(rb"\b(scoped_\w+|scoped_guard)\s*\(")
_GUARD_STMT = lazy_compile(rb"\b(\w*guard)\s*\(")
_DO_EACH = lazy_compile(rb"\b(do_each_\w+)\s*\(")
_WHILE_EACH = lazy_compile(rb"\b(while_each_\w+)\s*\(")
_COMPILE_TIME = lazy_compile(rb"\b(BUILD_BUG_ON\w*|static_assert|_Static_assert|BUILD_BUG_ON_MSG|"
                           rb"compiletime_assert|lockdep_assert\w*|might_sleep|might_fault|WARN_ON_SMP)\s*\(")
_PER_CPU_DEF = lazy_compile(rb"(?:DEFINE|DECLARE)_PER_CPU\w*\Z")


# annotations without arguments that carry no meaning for output (section, alignment, layout)
_BARE_ANNOTATIONS = lazy_compile(
    rb"\b(?:_{2,4}cacheline_aligned(?:_in_smp)?|__page_aligned_(?:bss|data)|__initconst|__exitdata|__refdata|"
    rb"__initdata_or_module|__packed|__randomize_layout|__no_randomize_layout|__latent_entropy|__noreturn|"
    rb"__noclone|__nocfi|__flatten|__ref|__meminit|__meminitdata|__cpuinit|__always_unused|__unused|"
    rb"__private|__rcu_read_mostly|__nostackprotector|__attribute_const__|__no_sanitize_address|"
    rb"__lockdep_enabled|__cold|__init_or_module|__sched|__naked|__safe)\b(?!\s*\()"
)


def modelled(name: str) -> bool:
    """A name the front end or the model gives a meaning of its own (a header's definition of it
    is never expanded in its place)."""
    raw = name.encode("latin-1")
    return (name in IDENTITY_CALLS or raw in TYPED_MINMAX or raw in ENTRY_MACROS or raw in ARGUMENT_LIST_MACROS
            or raw in _NOT_MACROS or name in lib.PURE or name in lib.DIVISIONS or name in lib.BUILTIN_CALLS
            or name in lib.SEQ_ACCESSORS or name in lib.TABLES or name in PRIMITIVES or name in lib.READ_SECTION_RETRIES
            or any(p.fullmatch(raw + b"(") for p in (FOR_EACH, _SCOPED, _GUARD_STMT, _DO_EACH, _WHILE_EACH, _COMPILE_TIME)))


def rewrite(text: bytes) -> bytes:
    """All the rewrites, in an order where each sees the previous one's output."""
    text = _BARE_ANNOTATIONS.sub(lambda m: b" " * len(m.group(0)), text)
    text = _rewrite_layout_macros(text)
    text = _rewrite_file_scope(text)
    text = _rewrite_statements(text)
    text = _rewrite_calls(text)
    return text


# ---------------------------------------------------------------------------------------------
# scanning helpers (strings and character literals are skipped; comments are already blank)


def matching_paren(text: bytes, open_pos: int) -> int | None:
    """The index of the ')' that closes the '(' at open_pos, skipping string literals."""
    depth = 0
    i = open_pos
    quote: int | None = None
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == 0x5C:
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in (0x22, 0x27):
            quote = c
        elif c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def split_args(inner: bytes) -> list[bytes]:
    """Top-level comma-separated arguments of a call's inside."""
    args: list[bytes] = []
    depth = 0
    start = 0
    i = 0
    quote: int | None = None
    while i < len(inner):
        c = inner[i]
        if quote is not None:
            if c == 0x5C:
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in (0x22, 0x27):
            quote = c
        elif c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == 0x2C and depth == 0:
            args.append(inner[start:i])
            start = i + 1
        i += 1
    args.append(inner[start:])
    return args


def blank(text: bytes) -> bytes:
    """The same length of spaces, newlines kept."""
    return bytes(b if b == 0x0A else 0x20 for b in text)


def _newlines(text: bytes) -> bytes:
    return b"\n" * text.count(b"\n")


_QUOTED_OR_BRACE = lazy_compile(rb'"(?:[^"\\]|\\.)*"?|\'(?:[^\'\\]|\\.)*\'?|[{}]', re.DOTALL)


def _depths(text: bytes) -> list[int]:
    """Brace depth before each byte (strings and char literals skipped: a literal runs to its
    closing quote, past escaped bytes, or to the end). One regex finds the braces outside
    literals, and each run of bytes between two takes its depth at once (a byte-by-byte loop
    was a third of parsing a 256-field function)."""
    out: list[int] = []
    depth = 0
    done = 0
    for m in _QUOTED_OR_BRACE.finditer(text):
        at = m.start()
        if m.end() - at != 1 or text[at] not in b"{}":
            continue  # a string or character literal
        out += [depth] * (at + 1 - done)
        depth += 1 if text[at] == 0x7B else -1
        done = at + 1
    out += [depth] * (len(text) + 1 - done)
    return out


def at_statement_start(text: bytes, pos: int) -> bool:
    before = text[:pos].rstrip()
    return not before or before.endswith((b";", b"{", b"}", b")", b":")) or before.endswith(b"else")


# ---------------------------------------------------------------------------------------------
# layout: expressions of a struct's layout, and members declared by a macro

_ZERO_CHECKS = lazy_compile(rb"\b(BUILD_BUG_ON_ZERO)\s*\(")
_OFFSETOF = lazy_compile(rb"\boffsetof\s*\(")
_FLEX_ARRAY = lazy_compile(rb"\b(DECLARE_FLEX_ARRAY|__DECLARE_FLEX_ARRAY)\s*\(")
_PLAIN_MEMBER = lazy_compile(rb"\s*[A-Za-z_]\w*\s*\Z")


def _rewrite_layout_macros(text: bytes) -> bytes:
    """`BUILD_BUG_ON_ZERO(e)` is the int 0 wherever it stands (an initializer's item as well as a
    term: `static int bugs[] = { BUILD_BUG_ON_ZERO(offsetof(...) % 4), ... }`);
    `offsetof(T, a.b[n])`, whose member designator tree-sitter cannot parse, is
    `__fc_offsetof("T", "a.b[n]")` (the model's offset of that designator: the same input on both
    sides); `DECLARE_FLEX_ARRAY(T, name)` in a struct declares `T name[]`."""
    text = _replace_calls(text, _ZERO_CHECKS, lambda args: b"0")
    text = _replace_calls(text, _OFFSETOF, _offsetof_call)
    return _replace_calls(text, _FLEX_ARRAY, lambda args: args[0].strip() + b" " + args[1].strip() + b"[]"
                          if len(args) == 2 else None)


def _offsetof_call(args: list[bytes]) -> bytes | None:
    if len(args) != 2 or _PLAIN_MEMBER.match(args[1]):
        return None  # `offsetof(struct T, member)`: tree-sitter's offsetof_expression
    quoted = [b'"' + b" ".join(a.split()).replace(b'"', b"'") + b'"' for a in args]
    return b"__fc_offsetof(" + b", ".join(quoted) + b")"


def _replace_calls(text: bytes, pattern: re.Pattern, make) -> bytes:
    """Each call of PATTERN, by MAKE(its arguments) (None: left as it is), newlines kept."""
    out = bytearray()
    pos = 0
    for m in pattern.finditer(text):
        if m.start() < pos:
            continue
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        new = make(split_args(text[m.end():close]))
        if new is None:
            continue
        out += text[pos:m.start()] + new.replace(b"\n", b" ") + _newlines(text[m.start():close + 1])
        pos = close + 1
    out += text[pos:]
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# file scope


def _rewrite_file_scope(text: bytes) -> bytes:
    """`[static] MACRO(args);` at file scope: a per-CPU declaration, or blank."""
    depths = _depths(text)
    out = bytearray()
    pos = 0
    for m in _CALL_HEAD.finditer(text):
        start = m.start()
        if start < pos or depths[start] != 0 or m.group(1) in _NOT_MACROS:
            continue
        head = start
        prefix = text[:start].rstrip()
        if prefix.endswith(b"static") and (len(prefix) == 6 or not _is_word_byte(prefix[-7])):
            head = len(prefix) - len(b"static")
            prefix = text[:head].rstrip()
        if prefix and not prefix.endswith((b";", b"}")):
            continue
        if not _is_file_scope_macro(m.group(1)):
            continue  # a statement list's call (`seq_puts(m, "x");`) stays a statement
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        after = text[close + 1:]
        stripped = after.lstrip()
        if not stripped.startswith(b";"):
            continue
        end = close + 1 + (len(after) - len(stripped)) + 1
        whole = text[head:end]
        out += text[pos:head]
        out += _file_scope_replacement(m.group(1), text[m.end():close], whole, head != start)
        pos = end
    out += text[pos:]
    return bytes(out)


_REGISTRATION = lazy_compile(rb"(?:module_\w+|\w*initcall\w*|__setup|early_param|core_param|postcore_param|"
                           rb"arch_param|device_param_cb|__exitcall|__initcall|console_initcall)\Z")


def _is_file_scope_macro(name: bytes) -> bool:
    """Upper-case invocations (EXPORT_SYMBOL, DEFINE_*, MODULE_*) and registration helpers."""
    return bool(re.fullmatch(rb"[A-Z_][A-Z0-9_]*", name)) and any(c.isalpha() for c in name.decode()) \
        or bool(_REGISTRATION.match(name))


def _is_word_byte(b: int) -> bool:
    return chr(b).isalnum() or b == 0x5F


def _file_scope_replacement(name: bytes, inner: bytes, whole: bytes, static: bool) -> bytes:
    args = split_args(inner)
    if _PER_CPU_DEF.match(name) and len(args) >= 2:
        decl = (b"extern " if name.startswith(b"DECLARE") else b"static " if static else b"")
        decl += args[0].strip() + b" " + args[1].strip() + b";"
        decl = decl.replace(b"\n", b" ")
        return decl + b" " * max(0, len(whole) - len(decl) - whole.count(b"\n")) + _newlines(whole)
    return blank(whole)


# ---------------------------------------------------------------------------------------------
# statement-shaped macros


def _rewrite_statements(text: bytes) -> bytes:
    text = _replace_heads(text, _SCOPED, lambda name, inner: b"if (1)")
    text = _replace_guards(text)
    text = _replace_heads(text, _DO_EACH, lambda name, inner: b'for (;__fc_each("' + name + b'"'
                          + (b", " + inner.replace(b"\n", b" ") if inner.strip() else b"") + b");)")
    text = _blank_while_each(text)
    text = _blank_statement_calls(text, _COMPILE_TIME)
    return text


def _blank_statement_calls(text: bytes, pattern: re.Pattern) -> bytes:
    """Compile-time assertions and debug checks as statements: no output, no value."""
    out = bytearray()
    pos = 0
    for m in pattern.finditer(text):
        if m.start() < pos or not at_statement_start(text, m.start()):
            continue
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        out += text[pos:m.start()] + blank(text[m.start():close + 1])
        pos = close + 1
    out += text[pos:]
    return bytes(out)


def _replace_heads(text: bytes, pattern: re.Pattern, make) -> bytes:
    out = bytearray()
    pos = 0
    for m in pattern.finditer(text):
        if m.start() < pos or not at_statement_start(text, m.start()):
            continue
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        old = text[m.start():close + 1]
        new = make(m.group(1), text[m.end():close])
        out += text[pos:m.start()] + _padded(new, old)
        pos = close + 1
    out += text[pos:]
    return bytes(out)


def _padded(new: bytes, old: bytes) -> bytes:
    """`new` with the newlines of `old` after it (line numbers survive)."""
    return new + _newlines(old)


def _replace_guards(text: bytes) -> bytes:
    """`guard(kind)(args);` takes a lock for the rest of the scope: no output, no value."""
    out = bytearray()
    pos = 0
    for m in _GUARD_STMT.finditer(text):
        if m.start() < pos or not at_statement_start(text, m.start()):
            continue
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        rest = text[close + 1:]
        second = len(rest) - len(rest.lstrip())
        if not rest.lstrip().startswith(b"("):
            continue
        close2 = matching_paren(text, close + 1 + second)
        if close2 is None:
            continue
        tail = text[close2 + 1:]
        semi = len(tail) - len(tail.lstrip())
        if not tail.lstrip().startswith(b";"):
            continue
        end = close2 + 1 + semi + 1
        out += text[pos:m.start()] + blank(text[m.start():end - 1]) + b";"
        pos = end
    out += text[pos:]
    return bytes(out)


def _blank_while_each(text: bytes) -> bytes:
    """The closing `while_each_X(...)` of a do_each_X loop (its head became the loop)."""
    return _blank_statement_calls(text, _WHILE_EACH)


# ---------------------------------------------------------------------------------------------
# expression-shaped macros with type arguments


def _rewrite_calls(text: bytes, top: bool = True) -> bytes:
    """Typed min/max/clamp, entry macros, and type arguments of other macros (innermost last:
    the rewritten arguments are rewritten again by the recursive call)."""
    depths = _depths(text) if top else None
    out = bytearray()
    pos = 0
    for m in _CALL_HEAD.finditer(text):
        if m.start() < pos or (depths is not None and depths[m.start()] == 0):
            continue
        name = m.group(1)
        if name in _NOT_MACROS:
            continue
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        inner = text[m.end():close]
        new = _rewrite_call(name, inner)
        if new is None:
            continue
        old = text[m.start():close + 1]
        out += text[pos:m.start()] + new.replace(b"\n", b" ") + _newlines(old)
        pos = close + 1
    out += text[pos:]
    return bytes(out)


def _rewrite_call(name: bytes, inner: bytes) -> bytes | None:
    if b"(" in inner:
        inner_new = _rewrite_calls(inner, top=False)
    else:
        inner_new = inner
    args = split_args(inner_new)
    if name in TYPED_MINMAX and len(args) >= 3:
        typ = args[0].strip()
        casts = b", ".join(b"(" + typ + b")(" + a.strip() + b")" for a in args[1:])
        return TYPED_MINMAX[name] + b"(" + casts + b")"
    if name in ARGUMENT_LIST_MACROS and len(args) == 1:
        count, bits = ARGUMENT_LIST_MACROS[name]
        arg = args[0].strip()
        first = count if name == b"cpumask_pr_args" else count + b"(" + arg + b")"
        return first + b", " + bits + b"(" + arg + b")"
    if name in ENTRY_MACROS and len(args) >= 2:
        if len(args) >= 3 and _TYPE_ARG.match(args[1]):
            return b"((" + args[1].strip() + b" *)(" + args[0].strip() + b"))"
        return b"(" + args[0].strip() + b")"
    typed = [k for k, a in enumerate(args) if _KEYWORD_LED_TYPE.match(a) and _TYPE_ARG.match(a)]
    if typed:
        new_args = [(b'"' + b" ".join(a.split()) + b'"') if k in typed else a for k, a in enumerate(args)]
        return name + b"(" + b",".join(new_args) + b")"
    if inner_new != inner:
        return name + b"(" + inner_new + b")"
    return None
